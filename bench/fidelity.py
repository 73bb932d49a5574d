"""How true the offline records are on real sessions: precision and recall against hand labels.

    .venv/bin/python bench/fidelity.py [--corpus bench/corpus] [--verbose]

The corpus (bench/corpus/SOURCES.md says where each transcript came from and its licence) holds
real public Claude Code transcripts and, for each, labels written by reading the transcript (not
from this tool's output): the errors hit (and whether they were fixed), the decisions made, the
configuration settings changed. A record matches a label one to one:

- an error row matches a fixed error when it contains one of the label's `match` substrings
  (an error code, an exception, a test name), case-insensitively;
- a decision row matches when its decision and rationale contain at least half of the label's
  `match` phrases;
- a config row matches when the file is the same and one setting is the other or a dotted part
  of it (`jobs.release` and `jobs.release.steps`).

A second row matching an already matched label counts against precision: ten true rows beat a
hundred noisy ones. Objectives are printed beside the label's; one that is a harness wrapper
(`<…>`) or a bare "continue" is counted as a failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphiti_session_tracking.summary import EnhancedSessionSummary, summarize_session
from graphiti_session_tracking.transcripts import read_transcript

DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus"
_WRAPPER = re.compile(r"^\s*<|^(?:continue|go on|proceed)\W*$", re.IGNORECASE)


@dataclass
class Score:
    labels: int = 0
    rows: int = 0
    matched_rows: int = 0
    found_labels: int = 0
    misses: list[str] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.labels += other.labels
        self.rows += other.rows
        self.matched_rows += other.matched_rows
        self.found_labels += other.found_labels
        self.misses += other.misses
        self.noise += other.noise

    @property
    def precision(self) -> float | None:
        return self.matched_rows / self.rows if self.rows else None

    @property
    def recall(self) -> float | None:
        return self.found_labels / self.labels if self.labels else None


def match_one_to_one(
    rows: Sequence[str], labels: Sequence[dict[str, Any]], matches: Callable[[str, dict[str, Any]], bool]
) -> Score:
    """Each row takes the first unmatched label it matches."""
    score = Score(labels=len(labels), rows=len(rows))
    taken: set[int] = set()
    for row in rows:
        hit = next((i for i, label in enumerate(labels) if i not in taken and matches(row, label)), None)
        if hit is None:
            score.noise.append(row)
        else:
            taken.add(hit)
            score.matched_rows += 1
    score.found_labels = len(taken)
    score.misses = [
        str(label.get("error") or label.get("decision") or label)
        for i, label in enumerate(labels)
        if i not in taken
    ]
    return score


def _contains_any(text: str, phrases: Iterable[str]) -> bool:
    lowered = text.lower()
    return any(p.lower() in lowered for p in phrases if p)


def error_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    rows = [f"{e.error}" for e in summary.errors_resolved or []]
    fixed = [label for label in labels if label.get("fixed")]
    return match_one_to_one(rows, fixed, lambda row, label: _contains_any(row, label.get("match") or []))


def decision_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    rows = [f"{d.decision} || {d.rationale or ''}" for d in summary.key_decisions or []]

    def matches(row: str, label: dict[str, Any]) -> bool:
        phrases = [p for p in label.get("match") or [] if p]
        found = sum(1 for p in phrases if p.lower() in row.lower())
        return bool(phrases) and found * 2 >= len(phrases)

    return match_one_to_one(rows, labels, matches)


def _same_file(a: str, b: str) -> bool:
    a, b = (re.sub(r"^(?:\./)+", "", path.replace("\\", "/")) for path in (a, b))
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _dotted_prefix(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return (
        a == b
        or a.startswith(b + ".")
        or b.startswith(a + ".")
        or a.startswith(b + "[")
        or b.startswith(a + "[")
    )


def config_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    rows = [f"{c.file}\x1f{c.setting}" for c in summary.config_changes or []]

    def matches(row: str, label: dict[str, Any]) -> bool:
        file, setting = row.split("\x1f", 1)
        return _same_file(file, str(label.get("file", ""))) and _dotted_prefix(
            setting, str(label.get("setting", ""))
        )

    score = match_one_to_one(rows, labels, matches)
    score.noise = [n.replace("\x1f", ": ") for n in score.noise]
    return score


def load_corpus(corpus: Path) -> list[tuple[Path, dict[str, Any]]]:
    pairs = []
    for label_file in sorted((corpus / "labels").glob("*.json")):
        label = json.loads(label_file.read_text())
        transcript = corpus / "transcripts" / label["file"]
        if transcript.exists():
            pairs.append((transcript, label))
    return pairs


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true", help="Every missed label and noisy row.")
    args = parser.parse_args()
    pairs = load_corpus(args.corpus)
    if not pairs:
        raise SystemExit(f"no labelled transcripts in {args.corpus}")
    totals = {"errors": Score(), "decisions": Score(), "config": Score()}
    wrappers = 0
    for transcript, label in pairs:
        summary = await summarize_session(read_transcript(transcript))
        scores = {
            "errors": error_score(summary, label.get("errors", [])),
            "decisions": decision_score(summary, label.get("decisions", [])),
            "config": config_score(summary, label.get("config_changes", [])),
        }
        bad_objective = bool(_WRAPPER.search(summary.objective))
        wrappers += bad_objective
        for kind, score in scores.items():
            totals[kind].add(score)
        if args.verbose:
            print(f"\n== {transcript.name}")
            print(f"   objective: {summary.objective[:120]!r}{'  <- WRAPPER' if bad_objective else ''}")
            print(f"   labelled:  {label.get('objective', '')[:120]!r}")
            for kind, score in scores.items():
                print(
                    f"   {kind}: {score.matched_rows}/{score.rows} rows true, {score.found_labels}/{score.labels} found"
                )
                for miss in score.misses:
                    print(f"     missed: {miss[:140]}")
                for noise in score.noise:
                    print(f"     noise:  {noise[:140]}")
    print(f"\n{len(pairs)} labelled real sessions ({args.corpus})")
    print(f"{'record':<10} {'labels':>6} {'rows':>5} {'precision':>9} {'recall':>7}")
    for kind, score in totals.items():
        print(
            f"{kind:<10} {score.labels:>6} {score.rows:>5} {_fmt(score.precision):>9} {_fmt(score.recall):>7}"
        )
    print(f"objectives that are a wrapper or a bare 'continue': {wrappers} of {len(pairs)}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
