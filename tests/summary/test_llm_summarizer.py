"""The LLM summarizer through Graphiti's real client and the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import threading
from typing import Any

from conftest import TRANSCRIPTS
from fake_openai import FakeOpenAI, Reply
from graphiti_core.llm_client.config import LLMConfig
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

from graphiti_session_tracking.activity import ActivityVector
from graphiti_session_tracking.summary import EnhancedSessionSummarizer, extract_summary, summarize_session
from graphiti_session_tracking.summary.content import ContentFilter, to_condense
from graphiti_session_tracking.transcripts import read_transcript

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"

ANSWER: dict[str, Any] = {
    "objective": "Port the Python utilities to a standalone Rust library.",
    "outcome": "completed",
    "completed_tasks": ["Created the Rust crate", "Ported all modules"],
    "key_decisions": [
        {
            "decision": "Use a library crate",
            "rationale": "No bindings needed",
            "alternatives": ["PyO3"],
            "confidence": 1.0,  # the model's own guess: dropped, the scale is the offline extractor's
        }
    ],
    "errors_resolved": [],
    "root_cause_analysis": None,
    "config_changes": [],
    "discoveries": ["The project had five modules"],
    "next_steps": ["Publish the crate"],
}


def summarizer(fake: FakeOpenAI, **kwargs: Any) -> EnhancedSessionSummarizer:
    client = OpenAIGenericClient(LLMConfig(api_key="k", base_url=fake.base_url, model="m"))
    return EnhancedSessionSummarizer(client, **kwargs)


async def test_one_call_and_offline_facts_win(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({**ANSWER, "files_modified": ["made/up.rs"]})
    session = read_transcript(PORT)
    summary = await summarize_session(session, summarizer=summarizer(fake_openai))
    offline = extract_summary(session)
    assert len(fake_openai.calls("/chat/completions")) == 1
    assert summary.generated_by == "llm" and summary.llm_calls == 1
    assert summary.llm_input_tokens > 1000 and summary.llm_output_tokens > 10
    assert summary.objective == ANSWER["objective"]
    assert summary.key_decisions is not None and summary.key_decisions[0].alternatives == ["PyO3"]
    assert summary.key_decisions[0].confidence is None
    assert summary.files_modified == offline.files_modified  # the transcript's own facts are kept
    assert summary.message_count == offline.message_count and summary.session_id == offline.session_id
    assert summary.next_steps == ["Publish the crate"]


async def test_prompt_has_high_priority_fields_not_low_ones(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json(ANSWER)
    session = read_transcript(PORT)
    offline = extract_summary(session).model_copy(
        update={"activity_vector": ActivityVector(fixing=1.0, configuring=0.8)}
    )
    await summarizer(fake_openai).summarize(session, offline)
    (request,) = fake_openai.calls("/chat/completions")
    prompt = request.body["messages"][-1]["content"]
    assert "**errors_resolved**" in prompt and "**config_changes**" in prompt
    assert "**discoveries**" not in prompt
    assert "fixing (1.0), configuring (0.8)" in prompt
    # Tool calls are collapsed: the narrative names files, never their contents.
    assert "Wrote Cargo.toml" in prompt or "Edited Cargo.toml" in prompt
    assert "pub fn" not in prompt


async def test_schema_mismatch_falls_back_to_offline(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"objective": "x", "outcome": "exploded"})
    session = read_transcript(PORT)
    summary = await summarize_session(session, summarizer=summarizer(fake_openai))
    assert summary.generated_by == "offline" and summary.llm_calls == 1
    assert summary.notes and "did not fit the schema" in summary.notes[0]
    assert summary.objective == extract_summary(session).objective


async def test_http_error_and_timeout_fall_back(fake_openai: FakeOpenAI) -> None:
    session = read_transcript(PORT)
    fake_openai.fail(400)
    failed = await summarize_session(session, summarizer=summarizer(fake_openai))
    assert failed.generated_by == "offline" and failed.notes and "BadRequestError" in failed.notes[0]
    fake_openai.reply(json.dumps(ANSWER), delay_s=3)
    slow = await summarize_session(session, summarizer=summarizer(fake_openai, timeout_s=0.5))
    assert slow.notes and "timed out" in slow.notes[0]


async def test_long_session_is_summarized_in_segments_and_merged(fake_openai: FakeOpenAI) -> None:
    session = read_transcript(PORT)
    first = {**ANSWER, "completed_tasks": ["Explored"], "outcome": "in_progress", "next_steps": ["Port"]}
    last = {**ANSWER, "objective": "later objective", "completed_tasks": ["Ported", "Explored"]}
    fake_openai.reply_json(first)
    fake_openai.default_reply.content = json.dumps(last)
    summary = await summarizer(fake_openai, max_prompt_chars=3000).summarize(
        session, extract_summary(session)
    )
    calls = fake_openai.calls("/chat/completions")
    assert len(calls) > 2 and summary.llm_calls == len(calls)
    assert summary.segments is not None and len(summary.segments) == len(calls)
    assert summary.segments[0].first_message == 0
    assert summary.segments[-1].last_message == len(session.messages) - 1
    for before, after in zip(summary.segments, summary.segments[1:], strict=False):
        assert after.first_message > before.last_message
    assert summary.objective == ANSWER["objective"]  # from the first part
    assert summary.outcome == "completed" and summary.next_steps == ANSWER["next_steps"]  # from the last
    assert summary.completed_tasks == ["Explored", "Ported"]
    assert "part 1 of" in calls[0].body["messages"][-1]["content"]


class _Condenser(FakeOpenAI):
    """Condensing prompts (marked by the test's template) get a short answer; the session's gets ANSWER."""

    def __init__(self) -> None:
        super().__init__()
        self._asking = threading.local()  # requests arrive at once, each on its own thread

    def _next_reply(self) -> Reply:
        question = json.dumps(getattr(self._asking, "body", {}))
        if "CONDENSE-ME" in question:
            return Reply(content=json.dumps({"summary": "a condensed tool result"}))
        return Reply(content=json.dumps(ANSWER))

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, dict[str, str]]:
        self._asking.body = body
        return super()._answer(path, body)


async def test_filter_leaves_categories_out_of_the_prompt(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json(ANSWER)
    session = read_transcript(PORT)
    keep = ContentFilter(tool_calls=False, user_messages=False)
    await summarizer(fake_openai, keep=keep).summarize(session, extract_summary(session))
    (request,) = fake_openai.calls("/chat/completions")
    prompt = request.body["messages"][-1]["content"]
    assert "Assistant:" in prompt
    assert "User:" not in prompt and "Wrote Cargo.toml" not in prompt and "Edited Cargo.toml" not in prompt


async def test_a_template_mode_condenses_long_tool_results_first() -> None:
    session = read_transcript(PORT)
    keep = ContentFilter(tool_content="CONDENSE-ME in {max_chars} characters: {content}")
    with _Condenser() as fake:
        summary = await summarize_session(
            session, summarizer=summarizer(fake, keep=keep, max_summary_chars=200)
        )
    condensing = [r for r in fake.calls("/chat/completions") if "CONDENSE-ME" in json.dumps(r.body)]
    wanted = {t for _, _, t in to_condense(session, keep, 200)}
    assert condensing and len(condensing) == len(wanted)  # each distinct long result once
    final = [r for r in fake.calls("/chat/completions") if "CONDENSE-ME" not in json.dumps(r.body)]
    prompt = final[-1].body["messages"][-1]["content"]
    assert "result: a condensed tool result" in prompt
    assert summary.llm_calls == len(wanted) + 1 and summary.objective == ANSWER["objective"]
