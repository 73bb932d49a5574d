"""The LLM path end to end on a real session: the tool's exact requests answered by a strong
model's recorded answers, replayed by the local OpenAI-compatible server through the real client
(tests/support/replay_openai.py, bench/llm_replay.py)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from replay_openai import ReplayOpenAI

from graphiti_session_tracking.config import LLMBudgetSection, LLMConfig
from graphiti_session_tracking.llm import LLMMeter, make_llm_client
from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.summary import EnhancedSessionSummarizer, extract_summary, summarize_session
from graphiti_session_tracking.tools import UnifiedToolClassifier
from graphiti_session_tracking.transcripts import read_transcript

SESSION = FIXTURES / "llm" / "go-type-errors.jsonl"
STORE = FIXTURES / "llm" / "go-type-errors"


async def test_the_recorded_answers_make_the_records_a_reader_would_write(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "answers.jsonl").write_bytes((STORE / "answers.jsonl").read_bytes())
    with ReplayOpenAI(store) as server:
        budget = LLMBudgetSection()
        meter = LLMMeter(budget.session_calls, budget.session_input_tokens)
        client = make_llm_client(
            LLMConfig(enabled=True, base_url=server.base_url, max_retries=0), Redactor(), meter
        )
        assert client is not None
        session = read_transcript(SESSION)
        summary = await summarize_session(
            session,
            UnifiedToolClassifier(client, persist=False),
            EnhancedSessionSummarizer(client, meter=meter),
        )
        assert (
            server.missing == []
        )  # every request the tool sent today was recorded: the prompts did not drift
        assert server.answered == 1  # every tool call of the session is placed by the rules: one request
    offline = extract_summary(session)
    assert summary.generated_by == "llm" and summary.llm_calls == 1
    assert summary.llm_input_tokens <= budget.session_input_tokens
    errors = summary.errors_resolved or []
    assert any(
        "mismatched types id.CheckpointID and string" in e.error and ".String()" in e.fix for e in errors
    )
    assert any("as id.CheckpointID value in argument to paths.CheckpointPath" in e.error for e in errors)
    assert len(errors) == len({e.error for e in errors})  # the model's rows and the offline ones, once each
    decision = next(d for d in summary.key_decisions or [] if "MustCheckpointID" in d.decision)
    assert "easiest" in decision.rationale and decision.confidence is not None and decision.confidence >= 0.7
    assert summary.files_modified == offline.files_modified  # facts from the transcript stand
