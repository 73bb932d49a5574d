"""The LLM's records laid over the offline ones: a union with duplicates removed.

- Decisions: the offline decisions read from the transcript's structure (a user's answer to a
  question, an approved plan, an explicit marker: confidence >= STRUCTURAL) are kept word for word;
  the model's are added unless they say the same (`same_choice`; a retelling of a structural one
  needs only half the shorter one's words: it answers the same question). A kept one without a
  rationale takes the model's, and the model's wording follows the user's exact choice when it
  names more ("Auth approach: GitHub App — Use a GitHub App ... via actions/create-github-app-token").
  Offline decisions read from phrasing alone are dropped: the model read the same text and its
  precision there is higher. A model's decision gets a confidence from how much of it the
  session's own words carry (0.5 to 0.9) and `by` only when the model names user or assistant.
- Errors: the model decides which errors the session hit, one row per distinct error: rows that
  name different files, positions, codes, tests or commits are different errors (`same_error`),
  whatever words they share. Where the offline rules found the same error, its row (the failing
  line as printed) stands in for the model's, with the model's root cause and fix filling its
  empty fields (and its fix replacing one that only lists the files edited and commands run). An
  offline error the model does not confirm is left out: on sessions nobody tuned rules for, 1 in
  27 such rows was an error a careful reader counts (bench/fidelity.py). Nor is a model's row
  kept when it only quotes a call the offline rules judge to have failed in form only (an editing
  hiccup, `rm` of a missing file, `nothing to commit`).
- Config changes: values read from the edits win; the model adds rows only for a configuration
  file the session edited that the offline rows say nothing of.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .config_changes import config_parser, parse_ignore
from .model import ConfigChange, DecisionRecord, ErrorResolution

STRUCTURAL = 0.8  # offline confidence of decisions read from structure (summary/decisions/)
# An offline fix that only lists what was touched ("Edited a.go; ran `make`"): the model's says what.
_BARE_FIX = re.compile(r"^(?:(?:Edited|Wrote|Ran|Re-ran) [^;]+(?:; |$))+$")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]{2,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "use",
        "used",
        "using",
        "will",
        "would",
        "should",
        "could",
        "have",
        "has",
        "was",
        "were",
        "are",
        "not",
        "but",
        "then",
        "than",
        "when",
        "which",
        "what",
        "why",
        "how",
        "its",
        "our",
        "their",
        "they",
        "them",
        "there",
        "here",
        "also",
        "only",
        "just",
        "all",
        "instead",
        "because",
    ]
)


def words(text: str) -> set[str]:
    return {w.lower().strip(".-/") for w in _WORD.findall(text)} - _STOP


def similar(a: str, b: str, threshold: float = 0.5) -> bool:
    """Two texts say the same: one's words mostly within the other's (overlap / smaller set)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return a.strip().lower() == b.strip().lower()
    return len(wa & wb) / min(len(wa), len(wb)) >= threshold


def grounding(text: str, session_words: set[str]) -> float:
    """How much of `text` the session's own words carry (0..1)."""
    mine = words(text)
    return len(mine & session_words) / len(mine) if mine else 0.0


def _folded(text: str) -> set[str]:
    """Words spelled alike: `if/else` and `ifelse`, `pre-built` and `prebuilt`, `tests` and `test`."""
    return {re.sub(r"[/\-]", "", w).removesuffix("s") for w in words(text)}


def same_choice(a: str, b: str) -> bool:
    """Two decisions say the same: one quotes the other, or at least three of their words and most
    of the shorter one's are shared (two shared words, "the `Wait` fix", name a topic, not a choice)."""
    ma, mb = _message(a), _message(b)
    if ma and mb and (ma in mb or mb in ma):
        return True
    wa, wb = _folded(a), _folded(b)
    shared = len(wa & wb)
    return shared >= 3 and shared / min(len(wa), len(wb)) >= 0.6


def merge_decisions(
    offline: Iterable[DecisionRecord], model: Iterable[DecisionRecord], session_words: set[str]
) -> list[DecisionRecord]:
    kept = [d for d in offline if (d.confidence or 0) >= STRUCTURAL or d.by == "user"]
    structural = len(kept)
    for decision in model:
        text = f"{decision.decision} {decision.rationale}"
        at = next(
            (
                i
                for i, k in enumerate(kept)
                if same_choice(k.decision, decision.decision)
                or (i < structural and similar(k.decision, decision.decision))
            ),
            None,
        )
        if at is None:
            confidence = round(0.5 + 0.4 * grounding(text, session_words), 2)
            kept.append(decision.model_copy(update={"confidence": confidence}))
            continue
        twin, update = kept[at], {}
        if not twin.rationale and decision.rationale:
            update["rationale"] = decision.rationale
        if at < structural and len(words(decision.decision) - words(twin.decision)) >= 2:
            # the user's exact choice first, then what the model read it to mean (names, flags)
            update["decision"] = f"{twin.decision} — {decision.decision}"
        kept[at] = twin.model_copy(update=update)
    return kept


# What names one error whatever the wording around it, by kind: a file position, a path or file
# name, an error code, a failing test's name, a commit hash. Two rows that both name a thing of one
# kind and share none of it are two errors (`TS2322` in route.ts and in team.ts, test_a and test_b,
# "could not apply a82e07c" and "... 27a33e9"); an exception class alone names no single error.
_IDENTITIES = (
    re.compile(r"[\w./-]*[A-Za-z][\w./-]*(?::\d+(?::\d+)?|\(\d+,\d+\))"),  # path:line[:col], path(l,c)
    re.compile(r"(?:[\w.-]*/)+[\w.-]+|\b[\w-]{2,}\.[a-z]{1,5}\b"),  # a path or a file name
    re.compile(r"\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b"),  # an error code
    re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),  # a commit or object hash
)
# A failing test: a pytest node's leaf (after its last `::`), else a test function's name.
_TEST = re.compile(r"::(\w+)(?!::)\b|\b(test_\w+|Test\w+)")


def _message(text: str) -> str:
    return " ".join(text.lower().split())


def _names(text: str) -> list[set[str]]:
    found = [{m.strip(".:,").lower() for m in pattern.findall(text)} for pattern in _IDENTITIES]
    leaves = [leaf or name for leaf, name in _TEST.findall(text)]
    nodes = {leaf.lower() for leaf, _ in _TEST.findall(text) if leaf}
    return [*found, nodes or {t.lower() for t in leaves}]


def same_error(a: str, b: str) -> bool:
    """Two rows are one error: one quotes the other, or they say mostly the same words and name
    nothing that tells them apart (`_IDENTITIES`)."""
    ma, mb = _message(a), _message(b)
    if ma and mb and (ma in mb or mb in ma):
        return True
    pairs = list(zip(_names(a), _names(b), strict=True))
    if any(na and nb and not na & nb for na, nb in pairs):
        return False
    return similar(a, b, 0.5 if any(na & nb for na, nb in pairs) else 0.6)


def merge_errors(
    offline: Iterable[ErrorResolution],
    answers: Iterable[Iterable[ErrorResolution]],
    form_only: tuple[list[str], list[str]] = ([], []),
) -> list[ErrorResolution]:
    """The model's errors, once each, with the offline row's exact failing line when the offline
    rules found the same error; an offline row the model does not confirm is left out.

    `answers` holds each answer's rows (one per part of a long session): an error said again in a
    later part is dropped, but rows of one answer are kept apart, as the model wrote them (it listed
    `python: command not found` and `common.sh: line 3: $'\\r': command not found` as two).
    A model's row quoted only from the output of a call that failed in form only is left out
    (`form_only`: those outputs, and the outputs of the failures counted, from
    errors.failed_in_form_only).
    """
    found = list(offline)
    taken: set[int] = set()  # offline rows already standing in for a model row
    said: list[str] = []  # the model's rows of the earlier answers, in its words
    hiccups, counted = ([_message(text) for text in texts] for texts in form_only)
    kept: list[ErrorResolution] = []
    for answer in answers:
        rows = list(answer)
        for error in rows:
            if any(same_error(text, error.error) for text in said):
                continue  # said in an earlier part of a long session
            if _quoted_from(error.error, hiccups) and not _quoted_from(error.error, counted):
                continue  # an editing hiccup, `rm` of a missing file: no error to a careful reader
            kept.append(_with_twin(error, found, taken))
        said += [error.error for error in rows]
    return kept


# Where a model's row joins what it quotes (`a / b`, `a ... b`, `a | b`, `a; b`, `cmd -> out`).
_JOINS = re.compile(r" / | \.\.\.? | … | \| |; | -> | → ")
_QUOTED_MIN = 12  # characters: a shorter piece ("Exit code 1") names no output


def _quoted_from(row: str, outputs: list[str]) -> bool:
    """Some piece of `row` is quoted word for word from one of `outputs` (each `_message`d); a
    piece may carry the model's own lead-in (`git commit failed: nothing to commit`)."""
    pieces = [_message(piece).strip(" .`'\"") for piece in _JOINS.split(row)]
    pieces += [piece.split(": ", 1)[1] for piece in pieces if ": " in piece]
    return any(piece in output for piece in pieces if len(piece) >= _QUOTED_MIN for output in outputs)


def _with_twin(error: ErrorResolution, found: list[ErrorResolution], taken: set[int]) -> ErrorResolution:
    """The model's row, or the offline row of the same error (not yet taken) filled in by it."""
    at = next((i for i, k in enumerate(found) if i not in taken and same_error(k.error, error.error)), None)
    if at is None:
        return error
    taken.add(at)
    twin = found[at]
    filled = {
        name: getattr(error, name)
        for name in ("root_cause", "fix", "verification")
        if getattr(error, name) and (not getattr(twin, name) or (name == "fix" and _BARE_FIX.match(twin.fix)))
    }
    if _message(twin.error) and _message(twin.error) in _message(error.error):
        filled["error"] = error.error  # the model quoted more of the same output: the whole line
    return twin.model_copy(update=filled)


def merge_config(
    offline: Iterable[ConfigChange], model: Iterable[ConfigChange], edited: set[str]
) -> list[ConfigChange]:
    """The offline rows; the model's only for a configuration file (by the offline rules' own
    test) that the session edited and the offline rows say nothing of (an edit they could not
    read): the model's retelling of settings the edits show was wrong more often than right. Not
    for an ignore file: the offline rules say nothing of one on purpose when its list was created
    or rewritten (no one row says it)."""
    kept = list(offline)
    covered = {c.file for c in kept}
    for change in model:
        known_file = any(change.file == f or f.endswith("/" + change.file) for f in edited)
        if (
            known_file
            and change.file not in covered
            and config_parser(change.file) not in (None, parse_ignore)
            and change.new_value.strip()
        ):
            kept.append(change)
    return kept
