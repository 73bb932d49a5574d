"""Seeded secrets never reach an LLM request or the graph (every property of every node and edge)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import backend_cli_args
from fake_openai import FakeOpenAI
from graph.test_writer import dump
from summary.transcript_builder import TranscriptBuilder

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend

SECRETS = {
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i",
    "aws": "AKIAIOSFODNN7EXAMPLQ",
    "github": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "jwt_secret": "s3cr3t-Value-That-Is-Long-And-Random-9f8e7d",
    "db_password": "hunter2-Pa55word",
    "mcp_token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
}


def seeded_transcript(tmp_path: Path) -> Path:
    builder = TranscriptBuilder(cwd="/work/app", session_id="secret-session")
    builder.user(f"Fix the login. My key is {SECRETS['openai']} if you need it.")
    builder.bash(
        f"export OPENAI_API_KEY={SECRETS['openai']} && pytest -q",
        "1 failed in 0.1s\nExit code 1",
        is_error=True,
    )
    builder.say(
        f"The DB URL is postgres://app:{SECRETS['db_password']}@db:5432/app; I decided to rotate "
        f"the JWT secret because it leaked."
    )
    builder.edit(
        "/work/app/.env",
        f"JWT_SECRET={SECRETS['jwt_secret']}\nJWT_EXPIRY=60\n",
        f"JWT_SECRET=rotated-{SECRETS['jwt_secret']}\nJWT_EXPIRY=3600\n",
    )
    builder.call("mcp__zorblax__frobnicate", {"token": SECRETS["mcp_token"], "aws_key": SECRETS["aws"]}, "ok")
    builder.bash("git push https://x:" + SECRETS["github"] + "@github.com/o/r.git", "pushed")
    builder.bash("pytest -q", "3 passed in 0.2s")
    builder.read(tmp_path)  # writes tmp_path/session.jsonl
    return tmp_path / "session.jsonl"


def test_no_secret_reaches_the_llm_or_the_graph(graph_config: GraphConfig, tmp_path: Path) -> None:
    import asyncio
    import subprocess
    import sys

    transcript = seeded_transcript(tmp_path)
    with FakeOpenAI() as fake:
        config = tmp_path / "graphiti.config.json"
        config.write_text(
            json.dumps(
                {
                    "llm": {"enabled": True, "base_url": fake.base_url, "model": "m"},
                    "summarization": {"tool_classification_cache": str(tmp_path / "cache.json")},
                }
            )
        )
        fake.reply_json(
            {
                "classifications": [
                    {
                        "id": 0,
                        "intent": "execute",
                        "domain": "unknown",
                        "confidence": 0.5,
                        "reasoning": "r",
                        "activity_signals": {},
                    }
                ]
            }
        )
        fake.default_reply.content = json.dumps({"objective": "Fix the login", "outcome": "completed"})
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "graphiti_session_tracking",
                "ingest",
                str(transcript),
                "--json",
                "--config",
                str(config),
                *backend_cli_args(graph_config),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["llm_calls"] >= 2
        sent = json.dumps([r.body for r in fake.requests])
    for name, secret in SECRETS.items():
        assert secret not in sent, name
        assert secret not in result.stdout + result.stderr, name
    assert "[REDACTED:" in sent

    async def graph_text() -> str:
        async with open_backend(graph_config) as backend:
            groups = await backend.list_groups() if backend.graph_per_group else []
            states = []
            for group in groups or ["work_app"]:
                driver = await backend.driver_for(group) if groups else backend.driver
                states.append(await dump(driver, group) if groups else None)
            if not groups:
                records, _, _ = await backend.driver.execute_query(
                    "MATCH (n) RETURN properties(n) AS p UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p"
                )
                return json.dumps([dict(r["p"]) for r in records], default=str)
            return json.dumps(states, default=str)

    stored = asyncio.run(graph_text())
    assert "JWT_EXPIRY" in stored and "3600" in stored  # harmless settings stay readable
    for name, secret in SECRETS.items():
        assert secret not in stored, name
