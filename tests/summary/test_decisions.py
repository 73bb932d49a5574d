"""key_decisions from the assistant's own words: decision, rationale, alternatives."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary._sentences import split_sentences
from graphiti_session_tracking.summary.decisions import MAX_DECISIONS, extract_decisions, is_decision
from graphiti_session_tracking.summary.model import DecisionRecord
from graphiti_session_tracking.transcripts import read_transcript


def _decisions(tmp_path: Path, *texts: str) -> list[DecisionRecord]:
    t = TranscriptBuilder()
    t.user("Build the auth module.")
    for text in texts:
        t.say(text)
    return extract_decisions(t.read(tmp_path))


def test_decision_with_because_clause_and_alternative(tmp_path: Path) -> None:
    [record] = _decisions(
        tmp_path,
        "Let me look at the keys. I'll use **RS256** over HS256 for JWT signing because it is safer in production.",
    )
    assert record == DecisionRecord(
        decision="I'll use RS256 over HS256 for JWT signing",
        rationale="It is safer in production",
        alternatives=["HS256"],
    )


def test_rationale_from_the_next_sentence(tmp_path: Path) -> None:
    [record] = _decisions(
        tmp_path,
        "I decided to store sessions in Redis rather than in Postgres. That way they expire on their own.",
    )
    assert record.decision == "I decided to store sessions in Redis rather than in Postgres"
    assert record.rationale == "That way they expire on their own"
    assert record.alternatives == ["Postgres"]


@pytest.mark.parametrize(
    ("text", "decision", "alternatives"),
    [
        (
            "- Used `Result<T, E>` instead of raising exceptions for `factorial()`",
            "Used Result<T, E> instead of raising exceptions for factorial()",
            ["raising exceptions"],
        ),
        ("Going with pydantic for validation.", "Going with pydantic for validation", None),
        ("We opted for SQLite, since the data is tiny.", "We opted for SQLite", None),
        ("I chose httpx over requests.", "I chose httpx over requests", ["requests"]),
        (
            "I prefer dataclasses to plain dicts here.",
            "I prefer dataclasses to plain dicts here",
            ["plain dicts here"],
        ),
    ],
)
def test_phrasings(tmp_path: Path, text: str, decision: str, alternatives: list[str] | None) -> None:
    [record] = _decisions(tmp_path, text)
    assert (record.decision, record.alternatives) == (decision, alternatives)


@pytest.mark.parametrize(
    "text",
    [
        "Should I use RS256 rather than HS256?",
        "If you'd rather than keep HS256, let me know.",
        "The function returns None instead of 0.",
        "The test failed because it got a list instead of a tuple.",
        "Run it with `--flag-a rather than --flag-b` to see.",
        'The docs say "prefer composition over inheritance" somewhere.',
        "Now let me update the Justfile for Rust.",
        "I'll iterate over the keys.",
    ],
)
def test_not_decisions(text: str) -> None:
    assert not any(is_decision(s) for s in split_sentences(text))


def test_code_blocks_are_not_read(tmp_path: Path) -> None:
    assert _decisions(tmp_path, "Here it is:\n```python\n# decided to use x instead of y\n```\nDone.") == []


_PAIRS = [
    ("httpx", "requests"),
    ("pydantic models", "TypedDicts"),
    ("structlog", "the logging module"),
    ("a ThreadPoolExecutor", "raw threads"),
    ("tomllib", "a regex parser"),
    ("pathlib", "os.path joins"),
    ("Click groups", "argparse subparsers"),
    ("an LRU cache", "a global dict"),
    ("UUID7 keys", "serial integers"),
    ("Alembic migrations", "hand-written SQL"),
    ("ruff format", "black"),
    ("pytest fixtures", "setUp methods"),
]


def test_near_duplicates_collapse_and_the_count_is_capped(tmp_path: Path) -> None:
    records = _decisions(
        tmp_path,
        "I decided to use Redis instead of Memcached.",
        "As before, I decided to use Redis instead of Memcached!",
        *[f"I decided to use {a} instead of {b}." for a, b in _PAIRS],
    )
    assert records[0].decision == "I decided to use Redis instead of Memcached"
    assert not any("As before" in r.decision for r in records)
    assert len(records) == MAX_DECISIONS


def test_sidechain_text_is_left_out(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Explore.")
    t.say("I decided to use Redis instead of Memcached.")
    t.records[-1]["isSidechain"] = True
    assert extract_decisions(t.read(tmp_path)) == []


def test_real_transcript_rust_port() -> None:
    """The port's closing summary lists 'Used Result<T, E> instead of raising exceptions'."""
    records = extract_decisions(read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl"))
    assert records == [
        DecisionRecord(
            decision="Used Result<T, E> instead of raising exceptions for factorial()",
            alternatives=["raising exceptions"],
        )
    ]


def test_real_transcripts_without_decisions() -> None:
    for name in (
        "coverage-test-fix.jsonl",
        "hello-world-script.jsonl",
        "stop-hook-uncommitted-changes.jsonl",
    ):
        assert extract_decisions(read_transcript(TRANSCRIPTS / name)) == []
