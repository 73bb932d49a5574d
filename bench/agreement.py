"""How far two careful readers agree under the fidelity matcher: the ceiling of `bench/fidelity.py`.

    .venv/bin/python bench/agreement.py [--split test|dev] [--second FOLDER]

A second reader labelled some transcripts of each split (`<split>/labels-second`) from the
transcript and ../shared/LABELLING.md alone, never seeing the first reader's labels. Its records are scored as if they were the tool's rows,
with the same strict one-to-one matcher (every `match` phrase of a first-reader label must be in
the row), beside the offline and LLM paths on the same sessions. A reader who read every line
scores what a perfect tool could score against one set of labels; goals above it cannot be shown
by this measure, whatever the tool does. The reverse (the first reader's records against the
second's phrases) is printed too: agreement has no preferred side. Totals only, so the test
split's figures can be read without reading its transcripts or labels.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from fidelity import (
    BY_AGENT,
    DEFAULT_CORPUS,
    _all_phrases,
    config_matches,
    config_row,
    decision_row,
    load_split,
    offline,
    pairs,
    report,
    score_split,
)


def _as_summary(label: dict[str, Any]) -> SimpleNamespace:
    """A reader's label file read as the summary a tool would have written."""
    return SimpleNamespace(
        agent="reader",
        objective=str(label.get("objective") or ""),
        errors_resolved=[
            SimpleNamespace(error=str(e.get("error") or ""), fix=str(e.get("fix") or ""))
            for e in label.get("errors") or []
        ],
        key_decisions=[
            SimpleNamespace(decision=str(d.get("decision") or ""), rationale=str(d.get("rationale") or ""))
            for d in label.get("decisions") or []
        ],
        config_changes=[
            SimpleNamespace(
                file=str(c.get("file") or ""),
                setting=str(c.get("setting") or ""),
                new_value=str(c.get("new") or ""),
            )
            for c in label.get("config_changes") or []
        ],
    )


def _either(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Both readers' labels of a session, a second-reader label left out when one of the first
    reader's records already matches it (the same record, not two): a row is true when at least
    one careful reader wrote it down."""
    ours = _as_summary(first)
    union = dict(first)
    for key, rows, matches in (
        ("errors", [e.error for e in ours.errors_resolved], _all_phrases),
        ("decisions", [decision_row(d) for d in ours.key_decisions], _all_phrases),
        ("config_changes", [config_row(c) for c in ours.config_changes], config_matches),
    ):
        theirs = second.get(key) or []
        covered = set(pairs(rows, theirs, matches).values())
        union[key] = [*(first.get(key) or []), *(label for i, label in enumerate(theirs) if i not in covered)]
    return union


def _reader(labels: dict[str, dict[str, Any]]) -> Any:
    async def summarize(transcript: Path) -> SimpleNamespace:
        return _as_summary(labels[transcript.name])

    return summarize


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--split", choices=("test", "dev"), default="test")
    parser.add_argument(
        "--second", type=Path, help="The second reader's labels (default <split>/labels-second)."
    )
    parser.add_argument("--no-llm", action="store_true", help="Leave out the LLM path.")
    args = parser.parse_args()
    folder = args.second or args.corpus / args.split / "labels-second"
    second = {
        label["file"]: label for label in (json.loads(p.read_text()) for p in sorted(folder.glob("*.json")))
    }
    first_pairs = [(t, label) for t, label in load_split(args.corpus, args.split) if t.name in second]
    if not first_pairs:
        sys.exit(f"no transcript of {folder} is labelled in {args.corpus / args.split}")
    first = {t.name: label for t, label in first_pairs}
    second_pairs = [(t, second[t.name]) for t, _ in first_pairs]
    either_pairs = [(t, _either(first[t.name], second[t.name])) for t, _ in first_pairs]
    tools: list[tuple[str, Any]] = [("offline path", offline)]
    if not args.no_llm:
        from llm_replay import LLMPath

        tools.append(("LLM path (recorded answers)", LLMPath(args.corpus / args.split / "llm")))
    runs: list[tuple[str, list[tuple[Path, dict[str, Any]]], Any]] = [
        ("second reader's records, first reader's labels", first_pairs, _reader(second)),
        ("first reader's records, second reader's labels", second_pairs, _reader(first)),
    ]
    for name, summarize in tools:
        runs.append((f"{name}, first reader's labels", first_pairs, summarize))
        runs.append((f"{name}, second reader's labels", second_pairs, summarize))
        runs.append((f"{name}, either reader's labels", either_pairs, summarize))
    for title, labelled, summarize in runs:
        totals, wrappers = await score_split(labelled, summarize, verbose=False)
        BY_AGENT.clear()
        report(f"{args.split}, {title}", len(labelled), totals, wrappers)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
