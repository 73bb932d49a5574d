"""Why the LLM path's rows miss, by kind and never by sentence: counts only, so the test split can
be diagnosed without anyone reading its transcripts, labels, requests or answers.

For every counted label the final rows miss: whether its phrases were in what the model was sent
(if not, the evidence is the miss: cut to fit the budget, left out of the narrative, or not in the
transcript as written at all), whether a final row holds them but was matched one to one with
another label (one row for two choices or errors), whether only the model's own answer held a row
with them (then the merge lost it), or a row in other words (`same_error` / word overlap with the
label's text).
For every noisy row: whether it is a model row or an offline one, and whether it is a label's
error or choice in other words (the phrasing is the miss) or none (not a record to the labeller).

    .venv/bin/python bench/llm_kinds.py [--split test|dev]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from fidelity import DEFAULT_CORPUS, _all_phrases, load_split, pairs
from llm_replay import LLMPath
from replay_openai import ReplayOpenAI

from graphiti_session_tracking.summary.content import (
    _FAILING,
    ACTION,
    ESSENTIAL,
    KEEP_ALL,
    LOOKUP,
    USEFUL,
    ContentLine,
    render,
    session_content,
)
from graphiti_session_tracking.summary.llm_merge import same_error, similar
from graphiti_session_tracking.transcripts import Session, read_transcript

_SENT: list[str] = []  # the messages of every chat request of the current session
_ANSWERED: list[dict[str, Any]] = []  # the recorded answers given for them


def _capture() -> None:
    original = ReplayOpenAI._answer

    def answer(self: ReplayOpenAI, path: str, body: dict[str, Any]) -> Any:
        if path.endswith("/chat/completions"):
            _SENT.append("\n".join(str(m.get("content")) for m in body.get("messages") or []))
            from replay_openai import request_key

            found = self.answers.get(request_key(body.get("messages") or []))
            if isinstance(found, dict):
                _ANSWERED.append(found)
        return original(self, path, body)

    ReplayOpenAI._answer = answer  # type: ignore[method-assign]


def _strings(transcript: Path) -> list[tuple[str, str]]:
    """Every string of a transcript, unescaped, with the kind of entry it sits in (a tool's
    output, a tool call's input, thinking, the assistant's or a person's text), read from the
    keys and `type`/`role` values on its path (Claude Code, Codex, Gemini and OpenCode alike)."""
    found: list[tuple[str, str]] = []
    names: dict[str, str] = {}  # a tool call's id → its tool's name

    def kind(path: list[str]) -> str:
        tokens = {part.lower() for part in path}
        for marks, name in (
            ({"thinking", "reasoning", "thoughts"}, "thinking"),
            (
                {"tool_result", "function_call_output", "custom_tool_call_output", "tooluseresult"}
                | {"functionresponse", "output", "result", "stdout", "stderr"},
                "a tool's output",
            ),
            (
                {"tool_use", "function_call", "custom_tool_call", "functioncall", "input", "arguments"}
                | {"args", "toolcalls"},
                "a tool call's input",
            ),
            ({"summary", "compacted", "system"}, "a summary or system entry"),
            ({"user"}, "a person's text"),
            ({"assistant", "gemini", "model"}, "the assistant's text"),
        ):
            if tokens & marks:
                tool = next((names[p] for p in reversed(path) if p in names), "")
                if "tooluseresult" in tokens:
                    tool = f"{tool} toolUseResult".strip()
                return f"{name} ({tool})" if tool and "tool" in name else name
        return "another entry (" + "/".join(path[-4:]) + ")"

    def walk(value: Any, path: list[str]) -> None:
        if isinstance(value, str):
            found.append((kind(path), value))
        elif isinstance(value, dict):
            tags = [str(value[k]) for k in ("type", "role") if isinstance(value.get(k), str)]
            call = value.get("id") or value.get("call_id") or value.get("callId")
            if isinstance(value.get("name"), str) and isinstance(call, str):
                names[call] = value["name"]
            for key in ("tool_use_id", "call_id", "callId", "id"):
                if isinstance(value.get(key), str) and value[key] in names:
                    tags.append(value[key])
            for key, item in value.items():
                if key not in ("type", "role"):
                    walk(item, [*path, *tags, key])
        elif isinstance(value, list):
            for item in value:
                walk(item, path)

    text = transcript.read_text(errors="replace")
    for line in text.splitlines() if transcript.suffix == ".jsonl" else [text]:
        try:
            walk(json.loads(line), [])
        except ValueError:
            found.append(("an unreadable line", line))
    return found


def _where(strings: list[tuple[str, str]], label: dict[str, Any]) -> str:
    """Which kind of entry holds all of a label's phrases (several kinds: the first)."""
    kinds = [where for where, text in strings if _all_phrases(text, label)]
    return kinds[0] if kinds else "phrases spread over several entries"


def _line_kind(lines: list[ContentLine], label: dict[str, Any]) -> str:
    """The narrative line that held a label the budget cut: what it is and its priority."""
    line = next((ln for ln in lines if _all_phrases(ln.text, label)), None)
    if line is None:
        return " (spread over several lines)"
    text = line.text.removeprefix("(sub-agent) ").lstrip()
    what = next(
        (
            name
            for prefix, name in (
                ("User:", "a person's words"),
                ("Assistant (thinking):", "thinking"),
                ("Assistant:", "the assistant's words"),
                ("- Proposed a plan", "a plan"),
                ("- Asked the user", "a question"),
                ("→ the user's answer", "an answer"),
                ("→ sub-agent's report", "a sub-agent's report"),
                ("output:", "failing lines of an output"),
                ("-", "a tool call"),
            )
            if text.startswith(prefix)
        ),
        "another line",
    )
    worth = {ESSENTIAL: "essential", USEFUL: "useful", ACTION: "a call that succeeded", LOOKUP: "lookup"}
    return f" ({what}, {worth.get(line.priority, line.priority)})"


def _how(session: Session, label: dict[str, Any]) -> str:
    """What the reader made of the entry holding a label: a tool's output (its kind, failed or not,
    its size, whether the label's line reads as a failure) or a message (a person's or harness
    text, its size)."""
    for call in session.tool_calls:
        output = call.result.text if call.result is not None else ""
        if _all_phrases(output, label):
            line = next((ln for ln in output.splitlines() if _all_phrases(ln, label)), "")
            return (
                f"; read as {call.kind.value if call.kind else '?'} output,"
                f" {'failed' if call.result and call.result.is_error else 'succeeded'},"
                f" {'over' if len(output) > 1_200 else 'under'} 1,200 chars,"
                f" its line {'reads' if _FAILING.search(line) else 'does not read'} as a failure"
            )
    for message in session.messages:
        if _all_phrases(message.text, label):
            who = "a person's" if message.is_human else f"a non-human {message.role}"
            return f"; read as {who} text of {'over' if len(message.text) > 3_000 else 'under'} 3,000 chars"
    for call in session.tool_calls:
        written = json.dumps(call.full_input, ensure_ascii=False)
        if _all_phrases(written, label):
            size = "over" if len(written) > 3_000 else "under"
            return (
                f"; read as the input of a call ({call.kind.value if call.kind else '?'}), {size} 3,000 chars"
            )
    return f"; not read into the session ({session.agent}, {len(session.messages)} messages read)"


def _text(label: dict[str, Any]) -> str:
    return str(label.get("error") or label.get("decision") or "")


async def diagnose(split: str, corpus: Path) -> None:
    path = LLMPath(corpus / split / "llm")
    missed: Counter[str] = Counter()
    noisy: Counter[str] = Counter()
    for transcript, label in load_split(corpus, split):
        _SENT.clear()
        _ANSWERED.clear()
        summary = await path(transcript)
        sent = "\n".join(_SENT)
        session = read_transcript(transcript)
        lines = session_content(session, KEEP_ALL)
        narrative = render(lines)
        strings = _strings(transcript)
        written = "\n".join(text for _, text in strings)
        for record, key, field in (
            ("errors", "errors_resolved", "error"),
            ("decisions", "key_decisions", "decision"),
        ):
            labels = [lab for lab in label.get(record, []) if not lab.get("trivial")]
            rows = [
                getattr(r, field) + " || " + (getattr(r, "rationale", "") or "")
                for r in getattr(summary, key) or []
            ]
            raw = [
                str(r.get(field, "")) + " || " + str(r.get("rationale", ""))
                for a in _ANSWERED
                for r in a.get(key) or []
            ]
            paired = pairs(rows, labels, _all_phrases)
            taken = set(paired.values())
            for index, row in enumerate(rows):
                if index in paired:
                    continue
                origin = "model row" if any(similar(row, r, 0.8) for r in raw) else "offline row"
                near = any(
                    i not in taken
                    and (same_error(row, _text(lab)) if record == "errors" else similar(row, _text(lab)))
                    for i, lab in enumerate(labels)
                )
                noisy[f"{record}: {origin}, {'a label in other words' if near else 'no label near'}"] += 1
            for i, lab in enumerate(labels):
                if i in taken:
                    continue
                if not _all_phrases(sent, lab):
                    if _all_phrases(narrative, lab):
                        kind = "not sent: in the narrative, cut to fit the budget" + _line_kind(lines, lab)
                    elif _all_phrases(written, lab):
                        kind = f"not sent: left out of the narrative, in {_where(strings, lab)}"
                        kind += _how(session, lab)
                    else:
                        kind = "not sent: not in the transcript as written (the labeller's words)"
                elif any(_all_phrases(r, lab) for r in rows):
                    kind = "a row holds it, matched to another label (one row for two)"
                elif any(_all_phrases(r, lab) for r in raw):
                    kind = "the model's answer had it, the merge lost it"
                elif any(
                    same_error(r, _text(lab)) if record == "errors" else similar(r, _text(lab)) for r in raw
                ):
                    kind = "sent; the model wrote it in other words"
                else:
                    kind = "sent; the model did not record it"
                missed[f"{record}: {kind}"] += 1
    print(f"\n{split}, LLM path: missed labels")
    for kind, n in sorted(missed.items()):
        print(f"  {n:4}  {kind}")
    print(f"{split}, LLM path: noisy rows")
    for kind, n in sorted(noisy.items()):
        print(f"  {n:4}  {kind}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("test", "dev"), default="test")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    _capture()
    asyncio.run(diagnose(args.split, args.corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
