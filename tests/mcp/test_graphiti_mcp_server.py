"""The upstream Graphiti MCP server (graphiti-mcp-varming from the package index: the upstream
layout and calls) run over stdio with the MCP SDK's client against the Neo4j test server holding
our sessions, configured from `config graphiti-mcp`'s blocks, with a local embeddings stub: its
`search_nodes`, `search_memory_facts` and `get_episodes` return our records."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_openai import FakeOpenAI
from graph.test_queries import APP, SUMMARIES
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from graphiti_mcp_server import build
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphiti_session_tracking.config import AppConfig, GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.graphiti_mcp import advise
from graphiti_session_tracking.graph.writer import SessionGraphWriter

DIMENSIONS = 16  # the stub's vectors; the server's config must say the same


async def _call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    return json.loads(result.content[0].text)  # type: ignore[union-attr,no-any-return]


def _server_config(tmp_path: Path, graph: GraphConfig, fake: FakeOpenAI) -> Path:
    ours = AppConfig.validate({"embedder": {"enabled": True, "dimensions": DIMENSIONS}})
    advice = advise(ours, graph, [APP], None)
    assert advice.warnings == []
    blocks = advice.blocks
    blocks["database"]["providers"]["neo4j"]["password"] = graph.password
    blocks["embedder"]["providers"] = {"openai": {"api_key": "test", "api_url": fake.base_url}}
    blocks["llm"] = {
        "provider": "openai",
        "model": "m",
        "providers": {"openai": {"api_key": "test", "api_url": fake.base_url}},
    }
    blocks["server"] = {"transport": "stdio"}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(blocks))
    return path


@pytest.mark.neo4j
async def test_the_graphiti_mcp_server_finds_our_sessions(
    neo4j_config: GraphConfig, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    command = build()
    embedder = OpenAIEmbedder(
        OpenAIEmbedderConfig(api_key="k", base_url=fake_openai.base_url, embedding_dim=DIMENSIONS)
    )
    async with open_backend(neo4j_config) as backend:
        await SessionGraphWriter(backend, embedder=embedder).ingest_many(SUMMARIES)
    config = _server_config(tmp_path, neo4j_config, fake_openai)
    env = {
        **os.environ,
        "OPENAI_API_KEY": "test",
        "GRAPHITI_TELEMETRY_ENABLED": "false",
        "HOME": str(tmp_path),
    }
    env.pop("NEO4J_URI", None)
    env["OPENAI_BASE_URL"] = fake_openai.base_url  # its factories pass no api_url to OpenAI clients
    server = StdioServerParameters(
        command=str(command), args=["--config", str(config), "--transport", "stdio"], env=env, cwd=tmp_path
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        decisions = await _call(
            session,
            "search_nodes",
            query="Keep sessions in Redis",
            group_ids=[APP],
            entity_types=["Decision"],
        )
        assert "Keep sessions in Redis" in [n["name"] for n in decisions["nodes"]]
        assert all("Decision" in n["labels"] for n in decisions["nodes"])
        anything = await _call(session, "search_nodes", query="Keep sessions in Redis", group_ids=[APP])
        assert "Keep sessions in Redis" in [n["name"] for n in anything["nodes"]]
        facts = await _call(session, "search_memory_facts", query="JWT_EXPIRY", group_ids=[APP])
        assert any("JWT_EXPIRY" in f["fact"] for f in facts["facts"])
        # Its default group is the one `config graphiti-mcp` named (the sessions' only group) ...
        default_group = await _call(session, "search_nodes", query="Keep sessions in Redis")
        assert "Keep sessions in Redis" in [n["name"] for n in default_group["nodes"]]
        # ... and its own default `main` holds none of ours.
        main = await _call(session, "search_nodes", query="Keep sessions in Redis", group_ids=["main"])
        assert main["nodes"] == []
        episodes = await _call(session, "get_episodes", group_ids=[APP], max_episodes=10)
        assert any(e["name"].startswith("Session aaaa1111") for e in episodes["episodes"])
