"""Why offline error rows miss, by kind and never by sentence: counts only, so the test split
can be diagnosed without anyone reading its transcripts or labels.

For every counted label: where its phrases show up (a tool result, the user's words, the
assistant's words, nowhere) and, for a tool result, what the extractor made of that call (not
judged failed, judged not about the work, failed but never seen resolved, a row with another line).
For every noisy row: whether its failing call holds a counted label (right failure, another line),
a trivial one, or none (not an error to the labeller).

    .venv/bin/python bench/error_kinds.py [--split test|dev]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from fidelity import DEFAULT_CORPUS, _all_phrases, load_split, pairs

from graphiti_session_tracking.summary import errors as errors_module
from graphiti_session_tracking.summary.errors import commands as commands_module
from graphiti_session_tracking.summary.errors import lines as lines_module
from graphiti_session_tracking.summary.errors import reports as reports_module
from graphiti_session_tracking.summary.errors import verdict
from graphiti_session_tracking.summary.errors import walk as errors_walk
from graphiti_session_tracking.summary.model import ErrorResolution
from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts.model import Session, ToolCall, ToolKind
from graphiti_session_tracking.transcripts.reader import read_transcript


def _rows_with_calls(session: Session) -> list[tuple[ErrorResolution, ToolCall | None]]:
    """The extractor's rows, each with the failing call it was recorded from (resolved or not)."""
    made: list[tuple[ErrorResolution, ToolCall | None]] = []
    originals = {name: getattr(errors_walk, name) for name in ("_record", "_unresolved")}

    def recording(name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> ErrorResolution:
            row = originals[name](*args, **kwargs)
            made.append((row, args[2].failing))  # the failure is the third argument of both
            return row

        return record

    for name in originals:
        setattr(errors_walk, name, recording(name))
    try:
        rows = errors_module.extract_errors_resolved(session)
    finally:
        for name, original in originals.items():
            setattr(errors_walk, name, original)
    by_id = {id(record): call for record, call in made}
    return [(row, by_id.get(id(row))) for row in rows]


def _result_text(call: ToolCall) -> str:
    return call.result.text if call.result is not None else ""


def _where(session: Session, label: dict[str, Any]) -> tuple[str, ToolCall | None]:
    for message in session.messages:
        for call in message.tool_calls:
            if call.result is not None and _all_phrases(_result_text(call), label):
                return "tool result", call
    for message in session.messages:
        if _all_phrases(message.text, label):
            return ("user's words" if message.is_human else "assistant's words"), None
    return "nowhere verbatim", None


def _form(line: str) -> str:
    """Which kind of failing line this is, by the forms error_lines knows."""
    forms = (
        ("diagnostic", lines_module._DIAGNOSTIC),
        ("pytest E", lines_module._PYTEST_E),
        ("exception", lines_module._EXCEPTION),
        ("failed test", reports_module._FAILED_TEST),
        ("reported in words", lines_module._REPORTED),
    )
    for name, pattern in forms:
        if pattern.match(line):
            return name
    if reports_module._PANIC.search(line.strip()):
        return "panic"
    if lines_module._WARNING.match(line):
        return "warning"
    return "says failed" if lines_module._SAYS_FAILED.search(line) else "plain"


_FAILURE_WORDS = re.compile(
    r"(?i)\b(?:error|fail\w*|expected|cannot|can't|not found|denied|invalid|missing|refused)\b"
)


def _shape(line: str) -> str:
    """What a line looks like, without its words: its first mark (and the word a line reporting an
    error opens with), indent, whether it names a failure or a position, its length; to tell the
    kinds of 'plain' and 'reported' lines apart on the test split without reading them."""
    stripped = line.strip()
    first = stripped[:1]
    mark = first if first and not first.isalnum() else ("Aa" if first.isupper() else "aa")
    word = re.match(r"[A-Za-z_!]+", stripped)
    return ", ".join(
        filter(
            None,
            (
                f"starts {mark!r}"
                + (
                    f" {word.group(0)[:12]!r}"
                    if word and mark in ("Aa", "aa") and _form(line) == "reported in words"
                    else ""
                ),
                "indented" if line[:1].isspace() else "",
                "failure word" if _FAILURE_WORDS.search(stripped) else "",
                "position" if re.search(r"\S\.\w{1,5}:\d+", stripped) else "",
                f"{len(stripped) // 40 * 40}+ chars",
            ),
        )
    )


def _line_kind(call: ToolCall, label: dict[str, Any], rows: list[str]) -> str:
    """Where a label's phrases sit in the failing output, against the line the row took."""
    raw = lines_module._meaningful_lines(_result_text(call))
    phrases = [p.lower() for p in label.get("match") or [] if p]
    at = [i for i, line in enumerate(raw) if any(p in line.lower() for p in phrases)]
    if not at:
        return "label across wrapped lines"
    one = next((i for i in at if all(p in raw[i].lower() for p in phrases)), None)
    spread = "one line" if one is not None else "several lines"
    label_form = _form(raw[one if one is not None else at[0]])
    label_at = one if one is not None else at[0]
    heads = [r.split(" / ")[0][:60].lower() for r in rows]
    row_ats = [i for i, line in enumerate(raw) if any(h and h in line.lower() for h in heads)]
    if not row_ats:
        return f"{spread}, label line {label_form}, row lines not found"
    row_at = min(row_ats, key=lambda i: abs(i - label_at))
    distance = label_at - row_at
    near = f"{distance:+d}" if abs(distance) <= 3 else ("far after" if distance > 0 else "far before")
    return (
        f"{spread}, label line {label_form} at {near} from a row line {_form(raw[row_at])}"
        f" [label: {_shape(raw[label_at])}] [row: {_shape(raw[row_at])}]"
    )


def _why_not_work(call: ToolCall) -> str:
    """Which of `failure_lines`' reasons set the call aside."""
    result = call.result
    assert result is not None
    if call.kind is not ToolKind.COMMAND:
        return f"a {call.kind.value} tool, is_error {result.is_error}"
    text = lines_module._clean(result.text)
    if verdict._NOT_AN_ERROR.search(text[:500]):
        return "refused or interrupted"
    judged = commands_module._verdict(call)
    if judged is not None and judged.kind.intent in (ToolIntent.READ, ToolIntent.SEARCH):
        return f"a lookup: {judged.kind.what}, `{' '.join(filter(None, (judged.base, judged.subcommand)))}`"
    if lines_module._TIMED_OUT.match(text):
        return "a check that timed out"
    return "a hiccup or no line"


def _why_not_failed(call: ToolCall) -> str:
    """What the call that did not count as failed was."""
    result = call.result
    assert result is not None
    if call.kind is not ToolKind.COMMAND:
        return f"a {call.kind.value} tool"
    judged = commands_module._verdict(call)
    what = judged.kind.what if judged is not None else "an unknown program"
    if commands_module._is_check(call):
        what = "a check"
    return f"a command that {what}, exit 0" if not result.is_error else f"{what}, is_error"


def diagnose(split: str, corpus: Path) -> None:
    missed: Counter[str] = Counter()
    noisy: Counter[str] = Counter()
    lines_seen: Counter[str] = Counter()
    programs: Counter[str] = Counter()  # what ran, for a right failure with another line
    trivial_programs: Counter[str] = Counter()  # what ran, and the row's form, for a trivial one
    unlabelled_programs: Counter[str] = Counter()  # the same, for a failure with no label
    found = 0
    for transcript, label in load_split(corpus, split):
        session = read_transcript(transcript)
        rows = _rows_with_calls(session)
        counted = [e for e in label.get("errors", []) if not e.get("trivial")]
        trivial = [e for e in label.get("errors", []) if e.get("trivial")]
        paired = pairs([row.error for row, _ in rows], counted, _all_phrases)
        matched = set(paired.values())
        for index, (row, call) in enumerate(rows):
            if index in paired:
                continue
            if any(_all_phrases(row.error, e) for e in trivial):
                continue
            text = _result_text(call) if call is not None else ""
            if call is None:
                noisy["pasted by the user, no label"] += 1
            elif labelled := next((e for e in counted if _all_phrases(text, e)), None):
                noisy["right failure, another line"] += 1
                programs[" ".join(commands_module._kind_key(call)[1:3])] += 1
                lines_seen["noisy row: " + _line_kind(call, labelled, [row.error])] += 1
            elif any(_all_phrases(text, e) for e in trivial):
                noisy["a trivial failure, another line"] += 1
                trivial_programs[
                    f"{' '.join(commands_module._kind_key(call)[1:3])} ({_form(row.error)})"
                ] += 1
            else:
                noisy["no label for this failure"] += 1
                unlabelled_programs[
                    f"{' '.join(commands_module._kind_key(call)[1:3])} ({_form(row.error)})"
                ] += 1
        found += len(matched)
        row_calls = [call for _, call in rows if call is not None]
        for i, label_ in enumerate(counted):
            if i in matched:
                continue
            where, call = _where(session, label_)
            if call is None:
                missed[f"in the {where}" if where != "nowhere verbatim" else where] += 1
                continue
            lines = verdict.failure_lines(call)
            if any(c is call for c in row_calls):
                kind = "a row from that call with another line"
                lines_seen[
                    "missed: " + _line_kind(call, label_, [r.error for r, c in rows if c is call])
                ] += 1
            elif lines is None:
                kind = f"call judged not about the work ({_why_not_work(call)})"
            elif not lines:
                kind = f"call not judged failed ({_why_not_failed(call)})"
            else:
                kind = (
                    "failed, never seen resolved"
                    if label_.get("fixed")
                    else "failed, not fixed (no row kind)"
                )
            missed[f"tool result: {kind}"] += 1
    print(f"\n{split}: {found} labels found")
    print("missed labels, by where their phrases are and what the extractor did:")
    for kind, n in missed.most_common():
        print(f"  {n:4}  {kind}")
    print("noisy rows, by what their failing call holds:")
    for kind, n in noisy.most_common():
        print(f"  {n:4}  {kind}")
    print(
        "a right failure with another line, by program:",
        ", ".join(f"{p} {n}" for p, n in programs.most_common()),
    )
    print(
        "a trivial failure with another line, by program (row's form):",
        ", ".join(f"{p} {n}" for p, n in trivial_programs.most_common()),
    )
    print(
        "a failure with no label, by program (row's form):",
        ", ".join(f"{p} {n}" for p, n in unlabelled_programs.most_common()),
    )
    print("a right failure with another line: where the label's phrases sit")
    for kind, n in lines_seen.most_common():
        print(f"  {n:4}  {kind}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("test", "dev"), default=None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    for split in (args.split,) if args.split else ("test", "dev"):
        diagnose(split, args.corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
