"""The four-level classifier through Graphiti's real LLM client against the fake OpenAI server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import TRANSCRIPTS
from fake_openai import FakeOpenAI
from graphiti_core.llm_client.config import LLMConfig
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

from graphiti_session_tracking.tools import (
    ACTIVITY_DIMENSIONS,
    BashCommandClassification,
    ToolClassification,
    ToolClassifier,
    ToolDomain,
    ToolIntent,
    UnifiedToolClassifier,
    aggregate_signals,
)
from graphiti_session_tracking.transcripts import ToolCall, read_transcript


def _client(fake: FakeOpenAI) -> OpenAIGenericClient:
    return OpenAIGenericClient(LLMConfig(api_key="k", base_url=fake.base_url, model="m"))


def _call(name: str, **params: Any) -> ToolCall:
    return ToolCall(id=f"t-{name}", name=name, input=params, timestamp=None, line=1)


def _answer(item_id: int, **overrides: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "intent": "execute",
        "domain": "process",
        "confidence": 0.85,
        "reasoning": "deploys the app",
        "activity_signals": {"configuring": 0.7},
        **overrides,
    }


def _asked_items(fake: FakeOpenAI) -> list[dict[str, Any]]:
    """The items of the last classification request, as the LLM saw them."""
    content = fake.calls("/chat/completions")[-1].body["messages"][-1]["content"]
    items: list[dict[str, Any]] = json.loads(content.split("\n\n", 1)[1])
    return items


SESSION = [
    _call("Read", file_path="/p/src/app.py"),
    _call("Bash", command="pytest tests/"),
    _call("mcp__unknown__custom_tool", target="prod"),
    _call("Bash", command="cd deploy && shipit --env prod"),
    _call("Edit", file_path="/p/README.md", old_string="a", new_string="b"),
]


async def test_one_llm_call_per_session_then_cache(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    cache = tmp_path / "cache.json"
    fake_openai.reply_json(
        {
            "classifications": [
                _answer(0, intent="configure", domain="process", activity_signals={"configuring": 0.8}),
                _answer(1, reasoning="ships a release"),
            ]
        }
    )
    classifier = UnifiedToolClassifier(_client(fake_openai), cache)
    results = await classifier.classify_session(SESSION)

    assert len(fake_openai.calls("/chat/completions")) == 1
    asked = _asked_items(fake_openai)
    assert [a["id"] for a in asked] == [0, 1]
    assert asked[0]["tool_name"] == "mcp__unknown__custom_tool"
    assert asked[1]["command"] == "cd deploy && shipit --env prod"
    assert asked[1]["unknown_program"] == "shipit"

    assert [r.tool_name for r in results] == ["Read", "Bash", "mcp__unknown__custom_tool", "Bash", "Edit"]
    assert [r.source for r in results] == ["heuristic", "heuristic", "llm", "llm", "heuristic"]
    custom, shipit = results[2], results[3]
    assert isinstance(custom, ToolClassification)
    assert (custom.intent, custom.tool_params) == (ToolIntent.CONFIGURE, {"target": "prod"})
    assert isinstance(shipit, BashCommandClassification)
    assert (shipit.base_command, shipit.flags, shipit.targets) == ("shipit", ["--env"], ["prod"])
    assert shipit.reasoning == "ships a release"
    assert classifier.stats.as_dict() == {
        "exact_hits": 0,
        "pattern_hits": 0,
        "heuristic_hits": 3,
        "llm_classified": 2,
        "llm_calls": 1,
        "llm_failures": 0,
        "not_sent": 0,
        "fallbacks": 0,
        "total": 5,
    }

    # A later session (a new process: a new classifier on the same file) asks nothing.
    later = UnifiedToolClassifier(_client(fake_openai), cache)
    again = await later.classify_session(SESSION)
    assert len(fake_openai.calls("/chat/completions")) == 1
    assert [r.source for r in again] == ["heuristic", "heuristic", "cache", "cache", "heuristic"]
    assert again[2].intent == ToolIntent.CONFIGURE and again[3].reasoning == "ships a release"
    assert later.stats.exact_hits == 2 and later.stats.llm_calls == 0

    # Same tool, other parameters; same program, other arguments: the pattern level answers.
    other = await later.classify_session(
        [_call("mcp__unknown__custom_tool", target="staging"), _call("Bash", command="shipit --dry-run")]
    )
    assert len(fake_openai.calls("/chat/completions")) == 1
    assert [r.source for r in other] == ["cache", "cache"]
    assert other[0].tool_params == {"target": "staging"}
    assert isinstance(other[1], BashCommandClassification) and other[1].flags == ["--dry-run"]
    assert later.stats.pattern_hits == 2


async def test_spec_caching(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"classifications": [_answer(0)]})
    classifier = ToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    first = await classifier.classify_batch([("unknown_tool", {})])
    assert len(fake_openai.calls("/chat/completions")) == 1
    second = await classifier.classify_batch([("unknown_tool", {})])
    assert len(fake_openai.calls("/chat/completions")) == 1
    assert first[0].source == "llm" and second[0].source == "cache"


async def test_repeated_unknowns_are_asked_once(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"classifications": [_answer(0)]})
    classifier = ToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    results = await classifier.classify_batch([("mcp__a__zorblax", {"x": 1})] * 3)
    assert len(_asked_items(fake_openai)) == 1
    assert [r.source for r in results] == ["llm"] * 3


async def test_spec_unified_session(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"classifications": [_answer(0, activity_signals={"building": 0.3})]})
    classifier = UnifiedToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    classifications = await classifier.classify_session(
        [
            _call("Read", file_path="/test.py"),
            _call("Bash", command="pytest tests/"),
            _call("mcp__unknown__custom_tool"),
        ]
    )
    assert len(classifications) == 3
    signals = classifier.aggregate_signals(classifications)
    assert list(signals) == list(ACTIVITY_DIMENSIONS)
    assert signals["testing"] > 0  # pytest detected
    assert signals["exploring"] > 0  # Read detected
    assert signals["building"] == pytest.approx(0.3)


@pytest.mark.parametrize(
    "reply",
    [
        {"nonsense": True},
        {"classifications": "all good"},
        {"classifications": [{"id": 0, "intent": "dance", "domain": "process"}]},
        {"classifications": [_answer(0, confidence=7)]},
        {"classifications": [_answer(5)]},
    ],
)
async def test_garbage_answer_falls_back(tmp_path: Path, fake_openai: FakeOpenAI, reply: Any) -> None:
    fake_openai.reply_json(reply)
    cache = tmp_path / "cache.json"
    classifier = UnifiedToolClassifier(_client(fake_openai), cache)
    results = await classifier.classify_session(
        [_call("mcp__acme__zorblax"), _call("Bash", command="shipit")]
    )
    assert [r.source for r in results] == ["heuristic", "heuristic"]
    assert all(r.confidence <= 0.4 for r in results)
    assert classifier.stats.fallbacks == 2 and classifier.stats.llm_calls == 1
    assert classifier.problems
    # Nothing was cached: the next session asks again.
    await UnifiedToolClassifier(_client(fake_openai), cache).classify_session([_call("mcp__acme__zorblax")])
    assert len(fake_openai.calls("/chat/completions")) == 2


async def test_llm_error_falls_back(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.fail(400)
    classifier = UnifiedToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    results = await classifier.classify_session(
        [_call("Read", file_path="a.py"), _call("mcp__acme__run_widget")]
    )
    assert results[0].source == "heuristic" and results[0].confidence >= 0.85
    guess = results[1]
    assert guess.source == "heuristic" and guess.confidence <= 0.4
    assert guess.intent == ToolIntent.EXECUTE  # the partial name match survives as a guess
    assert classifier.stats.llm_failures == 1 and classifier.stats.fallbacks == 1
    assert any("LLM call failed" in p for p in classifier.problems)


async def test_partly_valid_answer(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json(
        {
            "classifications": [
                _answer(0, activity_signals={"configuring": 0.5, "debugging": 0.9}),
                {"id": 1, "intent": "teleport"},
            ]
        }
    )
    classifier = UnifiedToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    results = await classifier.classify_session([_call("mcp__a__zorblax"), _call("mcp__a__quux")])
    assert results[0].source == "llm" and results[0].activity_signals == {"configuring": 0.5}
    assert results[1].source == "heuristic" and results[1].confidence <= 0.4


async def test_without_llm_unknowns_get_low_confidence(tmp_path: Path) -> None:
    classifier = UnifiedToolClassifier(None, tmp_path / "cache.json")
    results = await classifier.classify_session(
        [_call("mcp__a__zorblax"), _call("Bash", command="shipit now")]
    )
    assert all(r.source == "heuristic" and r.confidence <= 0.4 for r in results)
    assert results[1].domain == ToolDomain.PROCESS
    assert classifier.stats.llm_calls == 0 and classifier.stats.fallbacks == 2
    assert not (tmp_path / "cache.json").exists()


def test_aggregate_signals_sums() -> None:
    read = ToolClassification(
        tool_name="Read",
        intent=ToolIntent.READ,
        domain=ToolDomain.CODE,
        confidence=0.9,
        reasoning="r",
        activity_signals={"exploring": 0.5, "reviewing": 0.25},
        source="heuristic",
    )
    assert aggregate_signals([read, read])["exploring"] == 1.0
    assert aggregate_signals([])["testing"] == 0.0


def test_signals_are_restricted() -> None:
    with pytest.raises(ValueError, match="unknown activity dimension"):
        ToolClassification(
            tool_name="x",
            intent=ToolIntent.READ,
            domain=ToolDomain.CODE,
            confidence=0.5,
            reasoning="r",
            activity_signals={"debugging": 0.5},
            source="llm",
        )
    with pytest.raises(ValueError, match=r"outside 0\.\.1"):
        BashCommandClassification(
            raw_command="x",
            base_command="x",
            intent=ToolIntent.READ,
            domain=ToolDomain.CODE,
            confidence=0.5,
            reasoning="r",
            activity_signals={"testing": 1.5},
            source="llm",
        )


@pytest.mark.parametrize("transcript", sorted(TRANSCRIPTS.glob("*.jsonl")), ids=lambda p: p.stem)
async def test_real_transcripts_need_no_llm(
    tmp_path: Path, fake_openai: FakeOpenAI, transcript: Path
) -> None:
    session = read_transcript(transcript)
    classifier = UnifiedToolClassifier(_client(fake_openai), tmp_path / "cache.json")
    results = await classifier.classify_session(session.tool_calls)
    assert len(results) == len(session.tool_calls)
    assert fake_openai.calls("/chat/completions") == []
    for call, result in zip(session.tool_calls, results, strict=True):
        assert result.tool_name == call.name
        assert result.source == "heuristic"
        assert result.confidence >= 0.5, (call.name, call.input, result)
        if call.name == "Bash":
            assert isinstance(result, BashCommandClassification)
            assert result.raw_command == call.input["command"]
    signals = classifier.aggregate_signals(results)
    assert any(v > 0 for v in signals.values()) == bool(results)


async def test_real_transcript_signals_make_sense(tmp_path: Path) -> None:
    session = read_transcript(TRANSCRIPTS / "coverage-test-fix.jsonl")
    results = await UnifiedToolClassifier(None, tmp_path / "c.json").classify_session(session.tool_calls)
    by_command = {r.raw_command: r for r in results if isinstance(r, BashCommandClassification)}
    pytest_run = by_command["python -m pytest tests/test_math_utils.py -v"]
    assert (pytest_run.base_command, pytest_run.domain) == ("pytest", ToolDomain.TESTING)
    commits = [r for r in by_command.values() if r.subcommand == "commit"]
    assert commits and all(r.domain == ToolDomain.VERSION_CONTROL for r in commits)
