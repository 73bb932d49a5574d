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
            "confidence": 1.0,  # the model's own guess: replaced by how grounded the row is
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
    # the model's own guess is not kept: the confidence says how much the session's words carry it
    assert (
        summary.key_decisions[0].confidence is not None and 0.5 <= summary.key_decisions[0].confidence <= 0.9
    )
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


# --- The LLM path as the quality path: evidence, budget, merge, counts --------------------------

from summary.transcript_builder import TranscriptBuilder  # noqa: E402

from graphiti_session_tracking.llm import LLMMeter, RedactingLLMClient  # noqa: E402
from graphiti_session_tracking.redact import Redactor  # noqa: E402


def _metered(fake: FakeOpenAI, meter: LLMMeter, **kwargs: Any) -> EnhancedSessionSummarizer:
    inner = OpenAIGenericClient(LLMConfig(api_key="k", base_url=fake.base_url, model="m"))
    return EnhancedSessionSummarizer(RedactingLLMClient(inner, Redactor(), meter), **kwargs)


def _evidence_session(tmp_path: Any) -> Any:
    builder = TranscriptBuilder(cwd="/work/app")
    builder.user("Make the importer fast enough for the nightly job.")
    builder.think("The batch API would avoid one round trip per row; the streaming one keeps memory flat.")
    builder.call(
        "AskUserQuestion",
        {
            "questions": [
                {
                    "question": "Which API should the importer use?",
                    "options": [{"label": "Batch API"}, {"label": "Streaming API"}],
                }
            ]
        },
        'User has answered your questions: "Which API should the importer use?"="Streaming API".',
    )
    noisy = "\n".join(f"  at frame_{i} (lib.js:{i})" for i in range(40))
    builder.bash(
        "npm test",
        f"PASS src/a.test.ts\n{noisy}\nFAIL src/importer.test.ts\n  TypeError: rows.map is not a function\nTests: 1 failed, 1 passed",
        is_error=True,
    )
    builder.call(
        "Task",
        {"description": "Research the streaming API limits"},
        "The streaming API caps at 500 rows a second.",
    )
    builder.bash(
        "python etl.py", "Loaded 10 rows\nERROR: duplicate key value violates unique constraint\ndone"
    )
    return builder.read(tmp_path)


async def test_the_prompt_carries_the_evidence(fake_openai: FakeOpenAI, tmp_path: Any) -> None:
    fake_openai.reply_json(ANSWER)
    session = _evidence_session(tmp_path)
    await summarize_session(session, summarizer=_metered(fake_openai, LLMMeter()))
    (call,) = fake_openai.calls("/chat/completions")
    prompt = call.body["messages"][-1]["content"]
    assert "Assistant (thinking): The batch API would avoid one round trip" in prompt
    assert (
        "Which API should the importer use?" in prompt and '"Streaming API"' in prompt
    )  # question and answer
    assert "Batch API" in prompt  # the options, not 40 characters of them
    assert "TypeError: rows.map is not a function" in prompt and "FAIL src/importer.test.ts" in prompt
    assert "frame_17" not in prompt  # stack frames are not failing lines
    assert "caps at 500 rows a second" in prompt  # the sub-agent's report
    assert "duplicate key value violates unique constraint" in prompt  # printed by a command that exited 0


async def test_the_budget_is_never_exceeded_and_says_when_it_cuts(fake_openai: FakeOpenAI) -> None:
    fake_openai.default_reply.content = json.dumps(ANSWER)
    session = read_transcript(PORT)
    meter = LLMMeter(session_calls=2, session_input_tokens=3_500)
    summary = await summarize_session(
        session, summarizer=_metered(fake_openai, meter, max_prompt_chars=48_000)
    )
    calls = fake_openai.calls("/chat/completions")
    sent = sum(len(m["content"]) for c in calls for m in c.body["messages"])
    assert 1 <= len(calls) <= 2 and (sent + 3) // 4 <= 3_500
    assert summary.llm_calls == len(calls) and summary.llm_input_tokens <= 3_500
    assert any("LLM budget" in note and "left out" in note for note in summary.notes or [])
    assert summary.generated_by == "llm"


async def test_a_budget_one_request_can_carry_is_spent_on_one_request(fake_openai: FakeOpenAI) -> None:
    """A second request pays the prompt again: when the budget holds no more than one request
    can carry, the narrative goes in one, filled to the budget."""
    fake_openai.default_reply.content = json.dumps(ANSWER)
    meter = LLMMeter(session_calls=2, session_input_tokens=3_000)
    summary = await summarize_session(
        read_transcript(PORT), summarizer=_metered(fake_openai, meter, max_prompt_chars=48_000)
    )
    (call,) = fake_openai.calls("/chat/completions")
    sent = sum(len(m["content"]) for m in call.body["messages"])
    assert 0.75 * 3_000 <= (sent + 3) // 4 <= 3_000 and summary.segments is None
    assert any("LLM budget" in note and "left out" in note for note in summary.notes or [])


async def test_a_run_budget_leaves_later_sessions_offline_and_says_so(fake_openai: FakeOpenAI) -> None:
    fake_openai.default_reply.content = json.dumps(ANSWER)
    meter = LLMMeter(session_calls=None, session_input_tokens=None, run_calls=1)
    summarizer = _metered(fake_openai, meter)
    first = await summarize_session(read_transcript(PORT), summarizer=summarizer)
    second = await summarize_session(read_transcript(PORT), summarizer=summarizer)
    assert len(fake_openai.calls("/chat/completions")) == 1
    assert first.generated_by == "llm" and second.generated_by != "llm" and second.llm_calls == 0
    assert any("LLM budget used up" in note for note in second.notes or [])


async def test_the_models_rows_are_merged_with_the_offline_ones(
    fake_openai: FakeOpenAI, tmp_path: Any
) -> None:
    session = _evidence_session(tmp_path)
    offline = extract_summary(session)
    user_choice = next(d for d in offline.key_decisions or [] if d.by == "user")
    fake_openai.reply_json(
        {
            **ANSWER,
            "key_decisions": [
                {"decision": "Use the Streaming API for the importer", "rationale": "keeps memory flat"},
                {"decision": "Retry the nightly job twice on failure", "rationale": "", "by": "assistant"},
            ],
            "errors_resolved": [
                {"error": "TypeError: rows.map is not a function", "root_cause": "rows was a dict"}
            ],
            "config_changes": [
                {"file": "made/up.toml", "setting": "x", "new_value": "1"},
            ],
        }
    )
    summary = await summarize_session(session, summarizer=_metered(fake_openai, LLMMeter()))
    decisions = summary.key_decisions or []
    kept = [d for d in decisions if d.decision == user_choice.decision and d.by == "user"]
    assert kept and kept[0].rationale == "keeps memory flat"  # word for word, the model's reason added
    assert not any(
        d.decision == "Use the Streaming API for the importer" for d in decisions
    )  # a duplicate of it
    added = next(d for d in decisions if d.decision.startswith("Retry the nightly job"))
    assert added.by == "assistant" and added.confidence is not None and 0.5 <= added.confidence < 0.9
    errors = summary.errors_resolved or []
    assert [e.error for e in errors].count("TypeError: rows.map is not a function") <= 1
    assert not any(c.file == "made/up.toml" for c in summary.config_changes or [])  # not a file it edited


async def test_the_classification_call_counts_in_the_sessions_cost(
    fake_openai: FakeOpenAI, tmp_path: Any
) -> None:
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    builder = TranscriptBuilder(cwd="/work/app")
    builder.user("Frobnicate the widgets.")
    builder.call("mcp__zorblax__frobnicate", {"target": "widgets"}, "ok")
    session = builder.read(tmp_path)
    verdict = {
        "id": 0,
        "intent": "execute",
        "domain": "unknown",
        "confidence": 0.5,
        "reasoning": "r",
        "activity_signals": {},
    }
    fake_openai.reply_json({"classifications": [verdict]})
    fake_openai.reply_json(ANSWER)
    summarizer = _metered(fake_openai, LLMMeter())
    classifier = UnifiedToolClassifier(summarizer.llm_client, persist=False)
    summary = await summarize_session(session, classifier, summarizer)
    assert len(fake_openai.calls("/chat/completions")) == 2
    assert summary.llm_calls == 2 and summary.llm_input_tokens > 0 and summary.llm_output_tokens > 0


async def test_a_session_the_summary_needs_the_whole_budget_for_classifies_its_tools_without_the_llm(
    fake_openai: FakeOpenAI, tmp_path: Any, caplog: Any
) -> None:
    """Classification gets what the summary leaves: a long session's narrative takes the whole
    budget, so its unknown tool is placed by heuristics and the one request carries more of it."""
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    builder = TranscriptBuilder(cwd="/work/app")
    builder.user("Frobnicate the widgets.")
    for n in range(160):
        builder.call("mcp__zorblax__frobnicate", {"target": f"widget {n}"}, "ok")
        builder.say(" ".join(f"Part {k} of widget {n} keeps `w{n}_{k}.cfg`." for k in range(12)))
    session = builder.read(tmp_path)
    fake_openai.reply_json(ANSWER)
    summarizer = _metered(fake_openai, LLMMeter())
    assert summarizer.wanted_tokens(session) > 12_000
    classifier = UnifiedToolClassifier(summarizer.llm_client, persist=False)
    summary = await summarize_session(session, classifier, summarizer)
    (call,) = fake_openai.calls("/chat/completions")
    assert "summarize coding-agent sessions" in call.body["messages"][0]["content"]
    assert 11_000 < summary.llm_input_tokens <= 12_000 and summary.llm_calls == 1
    assert summary.tools_used and summary.tools_used[0].name == "mcp__zorblax__frobnicate"
    assert "classification" not in caplog.text  # not asked, so nothing refused or failed


async def test_a_classification_request_larger_than_the_summary_leaves_is_not_made(
    fake_openai: FakeOpenAI, tmp_path: Any, caplog: Any
) -> None:
    """The room left is more than the classification's prompt but less than its request: the
    request is not made (nothing refused, nothing warned of), and the summary's notes say why."""
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    builder = TranscriptBuilder(cwd="/work/app")
    builder.user("Frobnicate the widgets.")
    for n in range(60):
        builder.call(f"mcp__zorblax__frobnicate_{n}", {"spec": f"widget {n} " + "x" * 300}, "ok")
    session = builder.read(tmp_path)
    fake_openai.reply_json(ANSWER)
    meter = LLMMeter()
    summarizer = _metered(fake_openai, meter)
    classifier = UnifiedToolClassifier(summarizer.llm_client, persist=False)
    summary = await summarize_session(session, classifier, summarizer)

    (call,) = fake_openai.calls("/chat/completions")
    assert "summarize coding-agent sessions" in call.body["messages"][0]["content"]
    assert classifier.stats.not_sent == 1 and classifier.stats.llm_failures == 0 and meter.refused == 0
    assert "classification" not in caplog.text
    assert any("tool classification not sent" in note for note in summary.notes or [])
    assert summary.tools_used and len(summary.tools_used) == 60
