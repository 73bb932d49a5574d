"""How true the records are on real sessions: precision and recall against hand labels, test split first.

    .venv/bin/python bench/fidelity.py [--corpus bench/corpus] [--verbose] [--llm]

The corpus (bench/corpus/<split>/SOURCES.md says where each transcript came from and its licence)
holds real public Claude Code transcripts in two splits by repository: `dev`, read by whoever
writes extraction rules, and `test`, labelled by readers who write no rules and never read by
whoever does (../shared/LABELLING.md). Only the test split's totals are printed; `--verbose`
lists misses and noise of the dev split only. Labels were written by reading each transcript.

Matching is strict and one to one:

- an error row matches a labelled error when it contains every `match` phrase of the label
  (case-insensitive); labels marked `trivial` are neither required nor counted against a row;
  every non-trivial error is in the recall set, fixed or not, and a matched row's fix is checked
  against the label's `fixed` (a fix for an unfixed error, or none for a fixed one, is reported);
- a decision row (decision and rationale) matches when it contains every `match` phrase;
- a config row matches when the file is the same and one setting is the other or a dotted part
  of it (`jobs.release` and `jobs.release.steps`); rows with no value are counted.

A second row matching an already matched label counts against precision: ten true rows beat a
hundred noisy ones. With `--llm`, the LLM path runs with the recorded answers of a strong
model to the tool's exact requests (bench/llm_replay.py records and replays them): an upper bound
of what a real model gives.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphiti_session_tracking.summary import EnhancedSessionSummary, summarize_session
from graphiti_session_tracking.transcripts import read_transcript

DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus"
SPLITS = ("test", "dev")
_WRAPPER = re.compile(r"^\s*<|^(?:continue|go on|proceed)\W*$", re.IGNORECASE)

Summarize = Callable[[Path], Any]


@dataclass
class Score:
    labels: int = 0
    rows: int = 0
    matched_rows: int = 0
    found_labels: int = 0
    ignored_rows: int = 0  # rows that matched a trivial label: neither right nor wrong
    wrong_fix: int = 0  # matched error rows whose fix disagrees with the label's `fixed`
    no_value: int = 0  # config rows without a value
    misses: list[str] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in (
            "labels",
            "rows",
            "matched_rows",
            "found_labels",
            "ignored_rows",
            "wrong_fix",
            "no_value",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses += other.misses
        self.noise += other.noise

    @property
    def precision(self) -> float | None:
        counted = self.rows - self.ignored_rows
        return self.matched_rows / counted if counted else None

    @property
    def recall(self) -> float | None:
        return self.found_labels / self.labels if self.labels else None


def _all_phrases(text: str, label: dict[str, Any]) -> bool:
    phrases = [p for p in label.get("match") or [] if p]
    lowered = text.lower()
    return bool(phrases) and all(p.lower() in lowered for p in phrases)


def pairs(
    rows: Sequence[str], labels: Sequence[dict[str, Any]], matches: Callable[[str, dict[str, Any]], bool]
) -> dict[int, int]:
    """The largest one-to-one pairing of rows with labels they match (row index → label index).

    Greedy pairing (each row takes the first free label) undercounts: a row that matches two labels
    can take the one another row needed. Augmenting paths (Kuhn's algorithm) find a maximum matching.
    """
    edges = [[i for i, label in enumerate(labels) if matches(row, label)] for row in rows]
    owner: dict[int, int] = {}  # label index → row index

    def augment(row: int, seen: set[int]) -> bool:
        for label in edges[row]:
            if label in seen:
                continue
            seen.add(label)
            if label not in owner or augment(owner[label], seen):
                owner[label] = row
                return True
        return False

    for row in range(len(rows)):
        augment(row, set())
    return {row: label for label, row in owner.items()}


def match_one_to_one(
    rows: Sequence[str],
    labels: Sequence[dict[str, Any]],
    matches: Callable[[str, dict[str, Any]], bool],
    ignored: Sequence[dict[str, Any]] = (),
) -> tuple[Score, dict[int, int]]:
    """Rows paired one to one with the labels they match (`pairs`); (score, row index → label index).
    A row left unpaired that matches an ignored (trivial) label is neither right nor wrong."""
    score = Score(labels=len(labels), rows=len(rows))
    taken = pairs(rows, labels, matches)
    for index, row in enumerate(rows):
        if index in taken:
            score.matched_rows += 1
        elif any(matches(row, label) for label in ignored):
            score.ignored_rows += 1
        else:
            score.noise.append(row)
    score.found_labels = len(taken)
    score.misses = [
        str(label.get("error") or label.get("decision") or label)
        for i, label in enumerate(labels)
        if i not in taken.values()
    ]
    return score, taken


def error_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    records = summary.errors_resolved or []
    counted = [label for label in labels if not label.get("trivial")]
    trivial = [label for label in labels if label.get("trivial")]
    score, taken = match_one_to_one([e.error for e in records], counted, _all_phrases, trivial)
    score.wrong_fix = sum(
        1
        for row, label in taken.items()
        if bool(records[row].fix.strip()) != bool(counted[label].get("fixed"))
    )
    return score


def decision_row(decision: Any) -> str:
    """What a decision label's phrases are looked for in: the choice and its rationale."""
    return f"{decision.decision} || {decision.rationale or ''}"


def decision_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    rows = [decision_row(d) for d in summary.key_decisions or []]
    return match_one_to_one(rows, labels, _all_phrases)[0]


def _same_file(a: str, b: str) -> bool:
    a, b = (re.sub(r"^(?:\./)+", "", path.replace("\\", "/")) for path in (a, b))
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _dotted_prefix(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a == b or any(x.startswith(y + sep) for x, y in ((a, b), (b, a)) for sep in ".[")


def config_row(change: Any) -> str:
    return f"{change.file}\x1f{change.setting}"


def config_matches(row: str, label: dict[str, Any]) -> bool:
    """The same file, and one setting the other or a dotted part of it (`config_row`'s row)."""
    file, setting = row.split("\x1f", 1)
    return _same_file(file, str(label.get("file", ""))) and _dotted_prefix(
        setting, str(label.get("setting", ""))
    )


def config_score(summary: EnhancedSessionSummary, labels: list[dict[str, Any]]) -> Score:
    changes = summary.config_changes or []
    rows = [config_row(c) for c in changes]
    score = match_one_to_one(rows, labels, config_matches)[0]
    score.noise = [n.replace("\x1f", ": ") for n in score.noise]
    score.no_value = sum(1 for c in changes if not (c.new_value or "").strip())
    return score


def load_split(corpus: Path, split: str) -> list[tuple[Path, dict[str, Any]]]:
    """The labelled transcripts of one split (a transcript without a label is not scored)."""
    pairs = []
    for label_file in sorted((corpus / split / "labels").glob("*.json")):
        label = json.loads(label_file.read_text())
        transcript = corpus / split / "transcripts" / label["file"]
        if transcript.exists():
            pairs.append((transcript, label))
    return pairs


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


async def score_split(
    pairs: list[tuple[Path, dict[str, Any]]], summarize: Summarize, verbose: bool
) -> tuple[dict[str, Score], int]:
    totals = {"errors": Score(), "decisions": Score(), "config": Score()}
    wrappers = 0
    for transcript, label in pairs:
        summary = await summarize(transcript)
        agent = summary.agent or "claude-code"
        sessions = BY_AGENT.setdefault(agent, {"sessions": Score()})
        sessions["sessions"].labels += 1  # a count of sessions, in a Score for want of a better box
        scores = {
            "errors": error_score(summary, label.get("errors", [])),
            "decisions": decision_score(summary, label.get("decisions", [])),
            "config": config_score(summary, label.get("config_changes", [])),
        }
        bad_objective = bool(_WRAPPER.search(summary.objective))
        wrappers += bad_objective
        for kind, score in scores.items():
            totals[kind].add(score)
            sessions.setdefault(kind, Score()).add(score)
        if verbose:
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
    return totals, wrappers


def report(split: str, pairs: int, totals: dict[str, Score], wrappers: int) -> None:
    print(f"\n{split}: {pairs} labelled real sessions")
    print(f"{'record':<10} {'labels':>6} {'rows':>5} {'precision':>9} {'recall':>7}  notes")
    for kind, score in totals.items():
        notes = ""
        if kind == "errors":
            notes = f"{score.wrong_fix} matched rows with a fix that disagrees with `fixed`"
        if kind == "config":
            notes = f"{score.no_value} rows without a value"
        print(
            f"{kind:<10} {score.labels:>6} {score.rows:>5} {_fmt(score.precision):>9} {_fmt(score.recall):>7}  {notes}"
        )
    print(f"objectives that are a wrapper or a bare 'continue': {wrappers} of {pairs}")
    if len(BY_AGENT) > 1:
        for agent, scores in sorted(BY_AGENT.items()):
            figures = ", ".join(
                f"{kind} {_fmt(s.precision).strip()} / {_fmt(s.recall).strip()} ({s.labels} labels)"
                for kind, s in scores.items()
                if kind != "sessions"
            )
            print(f"  {agent} ({scores['sessions'].labels} sessions): {figures}")
    BY_AGENT.clear()


# Each scored split's figures per coding agent (filled by score_split, printed and emptied by report).
BY_AGENT: dict[str, dict[str, Score]] = {}


async def offline(transcript: Path) -> EnhancedSessionSummary:
    return await summarize_session(read_transcript(transcript))


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true", help="Every missed label and noisy row (dev only).")
    parser.add_argument(
        "--llm",
        action="store_true",
        help="Also the LLM path, with the recorded answers (bench/llm_replay.py).",
    )
    args = parser.parse_args()
    for split in SPLITS:
        pairs = load_split(args.corpus, split)
        if not pairs:
            print(f"\n{split}: no labelled transcripts in {args.corpus / split}")
            continue
        totals, wrappers = await score_split(pairs, offline, args.verbose and split == "dev")
        report(f"{split}, offline", len(pairs), totals, wrappers)
        if args.llm:
            from llm_replay import LLMPath

            path = LLMPath(args.corpus / split / "llm")
            totals, wrappers = await score_split(pairs, path, args.verbose and split == "dev")
            report(
                f"{split}, LLM path (recorded answers of a strong model: an upper bound)",
                len(pairs),
                totals,
                wrappers,
            )
            print(
                f"LLM: {path.calls} requests, {path.input_tokens} input tokens ({path.input_tokens // len(pairs)} a "
                f"session); {path.missing} requests without a recorded answer (their sessions kept offline rows)"
            )


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
