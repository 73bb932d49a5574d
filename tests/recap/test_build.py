"""The recap on a real transcript and on graph records with work left open, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from graph.test_queries import summary

from graphiti_session_tracking.config import AppConfig, GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.pipeline.compose import build_pipeline
from graphiti_session_tracking.recap.build import RecapError, build_recap
from graphiti_session_tracking.recap.scoring import estimate_tokens

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"


async def test_recap_of_a_real_session_names_what_changed_within_the_budget(
    graph_config: GraphConfig,
) -> None:
    pipeline = build_pipeline(AppConfig(), graph_config)
    with pipeline.ledger() as ledger:
        report = await pipeline.ingest([PORT], ledger=ledger)
    session_id = report.sessions[0]["session_id"]
    for budget in (300, 1000):
        recap = await build_recap(pipeline, session=session_id[:8], budget=budget)
        assert recap.session_id == session_id and recap.tokens <= budget
        text = recap.markdown
        assert text.startswith("# Recap of the last session: Port this Python project to Rust")
        assert "## Where it stopped" in text
        assert "pub fn" not in text and "def " not in text  # file contents never
        assert "Cargo.toml" in text  # the setting it left in force
    small = await build_recap(pipeline, session=session_id, budget=300)
    large = await build_recap(pipeline, session=session_id, budget=1000)
    assert small.chunks_left_out > large.chunks_left_out
    assert f"{small.chunks_left_out} of" in small.markdown  # what was left out is said
    assert "committed" in large.markdown.lower() or "git commit" in large.markdown  # where it stopped


async def test_recap_carries_the_work_left_open(graph_config: GraphConfig, tmp_path: Path) -> None:
    day = datetime(2026, 3, 1, tzinfo=UTC)
    earlier = summary(
        "eeee0001-0000-4000-8000-000000000001",
        "/work/shop",
        day,
        objective="Add the cart",
        files_modified=["src/cart.py"],
        key_decisions=[
            {"decision": "Keep the cart in src/cart.py as a dataclass", "rationale": "no ORM yet"}
        ],
    )
    latest = summary(
        "eeee0002-0000-4000-8000-000000000002",
        "/work/shop",
        day.replace(day=2),
        objective="Price the cart",
        files_modified=["src/cart.py"],
        next_steps=["Add VAT to the cart total"],
        key_decisions=[  # its own choice is in force; one read from phrasing alone is not repeated
            {"decision": "Prices: net, VAT added at checkout", "confidence": 0.9, "by": "user"},
            {"decision": "The easiest approach is to round late", "confidence": 0.6},
        ],
        errors_resolved=[
            {"error": "AssertionError: total 10 != 12 in test_cart_total"},
            {"error": "KeyError: 'vat' in prices.py line 12"},  # hit again later and fixed: not open
            {"error": "KeyError: 'vat' in prices.py line 30", "fix": "Added vat to PRICES"},
        ],
        config_changes=[
            {"file": "pyproject.toml", "setting": "tool.pytest.ini_options.addopts", "new_value": "-q"}
        ],
    )
    async with open_backend(graph_config) as backend:
        await SessionGraphWriter(backend).ingest_many([earlier, latest])
    pipeline = build_pipeline(AppConfig(), graph_config)
    recap = await build_recap(pipeline, project=Path("/work/shop"))
    text = recap.markdown
    assert recap.session_id == latest.session_id and "Price the cart" in text
    assert "## Open next steps\n- Add VAT to the cart total" in text
    assert "## Errors left unresolved\n- AssertionError: total 10 != 12 in test_cart_total\n\n" in text
    assert (
        text.index("## Errors left unresolved")
        < text.index("## Open next steps")
        < text.index("## Decisions")
    )
    assert "Keep the cart in src/cart.py as a dataclass — no ORM yet" in text
    assert "- Prices: net, VAT added at checkout\n" in text and "round late" not in text
    assert "tool.pytest.ini_options.addopts = -q" in text
    assert "transcript is not on this machine" in text  # said, not guessed
    assert estimate_tokens(text) <= 1000
    with pytest.raises(RecapError, match=r"no session of /work/elsewhere.*--project PATH or --session ID"):
        await build_recap(pipeline, project=Path("/work/elsewhere"))


async def test_with_an_llm_one_call_writes_the_chosen_lines_as_prose(
    graph_config: GraphConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fake_openai import FakeOpenAI

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    with FakeOpenAI() as fake:
        config = AppConfig.validate(
            {
                "llm": {"default_model": "m", "openai": {"base_url": fake.base_url}},
                "session_tracking": {"auto_summarize": True},
            }
        )
        pipeline = build_pipeline(config, graph_config, use_llm=False)  # ingest offline
        with pipeline.ledger() as ledger:
            session_id = (await pipeline.ingest([PORT], ledger=ledger)).sessions[0]["session_id"]
        pipeline = build_pipeline(config, graph_config)
        fake.reply_json({"recap": "The port to Rust is done and committed; coverage is at 100% of lines."})
        recap = await build_recap(pipeline, session=session_id, use_llm=True)
        (call,) = fake.calls("/chat/completions")
        asked = call.body["messages"][-1]["content"]
        assert "Wrote Justfile" in asked and "pub fn" not in asked  # the chosen lines, never file contents
        assert recap.generated_by == "llm"
        assert "## Where it stopped\n> The port to Rust is done and committed" in recap.markdown
        fake.fail(500, times=10)
        fallback = await build_recap(pipeline, session=session_id, use_llm=True)
        assert fallback.generated_by == "rules" and "LLM recap failed" in fallback.markdown
        assert "- Wrote Justfile" in fallback.markdown
