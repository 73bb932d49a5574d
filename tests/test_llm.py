"""LLM and embedder clients from the config, talking to the fake OpenAI server."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from fake_openai import FakeOpenAI
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

from graphiti_session_tracking.config import ConfigError, EmbedderConfig, LLMConfig
from graphiti_session_tracking.llm import make_embedder, make_llm_client
from graphiti_session_tracking.summary import EnhancedSessionSummarizer, extract_summary, summarize_session
from graphiti_session_tracking.tools import ToolClassifier
from graphiti_session_tracking.transcripts import read_transcript


class Answer(BaseModel):
    word: str


def test_disabled_means_no_client() -> None:
    assert make_llm_client(LLMConfig()) is None
    assert make_embedder(EmbedderConfig()) is None


def test_enabled_without_key_or_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"\$OPENAI_API_KEY is not set"):
        make_llm_client(LLMConfig(enabled=True))


async def test_configured_clients_reach_the_endpoint(fake_openai: FakeOpenAI) -> None:
    llm = make_llm_client(LLMConfig(enabled=True, base_url=fake_openai.base_url, model="local-model"))
    assert llm is not None
    fake_openai.reply_json({"word": "hello"})
    assert await llm.generate_response([Message(role="user", content="say hello")], Answer) == {
        "word": "hello"
    }
    assert fake_openai.calls("/chat/completions")[0].body["model"] == "local-model"
    embedder = make_embedder(EmbedderConfig(enabled=True, base_url=fake_openai.base_url, dimensions=8))
    assert embedder is not None
    assert len(await embedder.create("text")) == 8


# --- a flaky or broken LLM: bounded retries with backoff, then the offline result -------------------

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"
ANSWER = {"objective": "Port the utilities to Rust.", "outcome": "completed", "next_steps": ["Publish"]}


def _summarizer(
    fake: FakeOpenAI, max_retries: int, request_timeout_s: float = 30.0
) -> EnhancedSessionSummarizer:
    llm = make_llm_client(
        LLMConfig(enabled=True, base_url=fake.base_url, max_retries=max_retries, timeout_s=request_timeout_s)
    )
    assert llm is not None
    return EnhancedSessionSummarizer(llm, timeout_s=60)


async def test_rate_limit_is_retried_honouring_retry_after_then_answered(fake_openai: FakeOpenAI) -> None:
    fake_openai.fail(429, times=2, retry_after="0")
    fake_openai.fail(503)
    fake_openai.reply_json(ANSWER)
    summary = await summarize_session(
        read_transcript(PORT), summarizer=_summarizer(fake_openai, max_retries=3)
    )
    assert len(fake_openai.calls("/chat/completions")) == 4
    assert summary.generated_by == "llm" and summary.objective == ANSWER["objective"]
    assert not summary.notes


async def test_endless_rate_limit_stops_after_the_bound_and_keeps_the_offline_summary(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.fail(429, times=50, retry_after="0")
    session = read_transcript(PORT)
    summary = await summarize_session(session, summarizer=_summarizer(fake_openai, max_retries=2))
    assert len(fake_openai.calls("/chat/completions")) == 3  # one try + two retries, no more
    assert summary.generated_by == "offline" and summary.objective == extract_summary(session).objective
    assert summary.notes and "RateLimitError" in summary.notes[0]


async def test_backoff_waits_grow_between_retries(fake_openai: FakeOpenAI) -> None:
    # Without Retry-After the SDK backs off exponentially: the gaps between attempts grow.
    fake_openai.fail(500, times=3)
    fake_openai.reply_json(ANSWER)
    summary = await summarize_session(
        read_transcript(PORT), summarizer=_summarizer(fake_openai, max_retries=3)
    )
    assert summary.generated_by == "llm"
    times = [r.received_at for r in fake_openai.calls("/chat/completions")]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert len(gaps) == 3 and all(gap > 0.2 for gap in gaps)  # never a hot loop


async def test_request_timeouts_are_retried_then_fall_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply(json.dumps(ANSWER), delay_s=2)
    fake_openai.reply(json.dumps(ANSWER), delay_s=2)
    summary = await summarize_session(
        read_transcript(PORT), summarizer=_summarizer(fake_openai, max_retries=1, request_timeout_s=0.5)
    )
    assert len(fake_openai.calls("/chat/completions")) == 2
    assert summary.generated_by == "offline" and summary.notes and "Timeout" in summary.notes[0]


@pytest.mark.parametrize(
    "body",
    [
        "<html><body>502 Bad Gateway</body></html>",  # not JSON at all
        '{"choices": []}',  # JSON, but no answer in it
        json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "I think..."}}]}),
    ],
)
async def test_garbage_answers_fall_back_to_offline(fake_openai: FakeOpenAI, body: str) -> None:
    fake_openai.reply_raw(body)
    session = read_transcript(PORT)
    summary = await summarize_session(session, summarizer=_summarizer(fake_openai, max_retries=2))
    assert summary.generated_by == "offline" and summary.notes and "offline summary kept" in summary.notes[0]
    assert summary.files_modified == extract_summary(session).files_modified


async def test_tool_classifier_survives_an_endless_rate_limit(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.fail(429, times=50, retry_after="0")
    llm = make_llm_client(LLMConfig(enabled=True, base_url=fake_openai.base_url, max_retries=1))
    classifier = ToolClassifier(llm, tmp_path / "cache.json")
    results = await classifier.classify_batch([("mcp__acme__frobnicate", {"x": 1})])
    assert len(fake_openai.calls("/chat/completions")) == 2
    assert results[0].source == "heuristic" and classifier.stats.llm_failures == 1
