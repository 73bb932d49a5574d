"""The LLM's records laid over the offline ones: a union with duplicates removed.

- Decisions: the offline decisions read from the transcript's structure (a user's answer to a
  question, an approved plan, an explicit marker: confidence >= STRUCTURAL) are kept word for word;
  the model's are added unless they say the same, and a kept one without a rationale takes the
  model's. Offline decisions read from phrasing alone are dropped: the model read the same text
  and its precision there is higher. A model's decision gets a confidence from how much of it the
  session's own words carry (0.5 to 0.9) and `by` only when the model names user or assistant.
- Errors: the model decides which errors the session hit. Where the offline rules found the same
  error, its row (the failing line as printed) stands in for the model's, with the model's root
  cause and fix filling its empty fields (and its fix replacing one that only lists the files edited
  and commands run). An offline error the model does not confirm is left out: on sessions nobody
  tuned rules for, 1 in 27 such rows was an error a careful reader counts (bench/fidelity.py).
- Config changes: values read from the edits win; the model adds rows only for a configuration
  file the session edited that the offline rows say nothing of.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .config_changes import config_parser
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


def merge_decisions(
    offline: Iterable[DecisionRecord], model: Iterable[DecisionRecord], session_words: set[str]
) -> list[DecisionRecord]:
    kept = [d for d in offline if (d.confidence or 0) >= STRUCTURAL or d.by == "user"]
    for decision in model:
        text = f"{decision.decision} {decision.rationale}"
        twin = next((k for k in kept if similar(k.decision, decision.decision)), None)
        if twin is not None:
            if not twin.rationale and decision.rationale:
                kept[kept.index(twin)] = twin.model_copy(update={"rationale": decision.rationale})
            continue
        confidence = round(0.5 + 0.4 * grounding(text, session_words), 2)
        kept.append(decision.model_copy(update={"confidence": confidence}))
    return kept


# What names one error whatever the wording around it: a file position, an error code, an
# exception or a failing test's name.
_MARKS = re.compile(
    r"\S+\.[A-Za-z]{1,5}:\d+(?::\d+)?|\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b"
    r"|\b[A-Z]\w*(?:Error|Exception)\b|\bTest\w+|\btest_\w+"
)


def _message(text: str) -> str:
    return " ".join(text.lower().split())


def same_error(a: str, b: str) -> bool:
    """Two rows are one error: a shared position, code, exception or test name, or mostly the
    same words."""
    if set(_MARKS.findall(a)) & set(_MARKS.findall(b)):
        return True
    return similar(a, b, 0.5)


def merge_errors(
    offline: Iterable[ErrorResolution], model: Iterable[ErrorResolution]
) -> list[ErrorResolution]:
    """The model's errors, once each, with the offline row's exact failing line when the offline
    rules found the same error; an offline row the model does not confirm is left out."""
    found = list(offline)
    kept: list[ErrorResolution] = []
    for error in model:
        if any(same_error(k.error, error.error) for k in kept):
            continue  # said twice (two parts of a long session)
        twin = next((k for k in found if same_error(k.error, error.error)), None)
        if twin is None:
            kept.append(error)
            continue
        filled = {
            name: getattr(error, name)
            for name in ("root_cause", "fix", "verification")
            if getattr(error, name)
            and (not getattr(twin, name) or (name == "fix" and _BARE_FIX.match(twin.fix)))
        }
        if _message(twin.error) and _message(twin.error) in _message(error.error):
            filled["error"] = error.error  # the model quoted more of the same output: the whole line
        kept.append(twin.model_copy(update=filled))
    return kept


def merge_config(
    offline: Iterable[ConfigChange], model: Iterable[ConfigChange], edited: set[str]
) -> list[ConfigChange]:
    """The offline rows; the model's only for a configuration file (by the offline rules' own
    test) that the session edited and the offline rows say nothing of (an edit they could not
    read): the model's retelling of settings the edits show was wrong more often than right."""
    kept = list(offline)
    covered = {c.file for c in kept}
    for change in model:
        known_file = any(change.file == f or f.endswith("/" + change.file) for f in edited)
        if (
            known_file
            and change.file not in covered
            and config_parser(change.file) is not None
            and change.new_value.strip()
        ):
            kept.append(change)
    return kept
