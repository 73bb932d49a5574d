"""`config graphiti-mcp`: the blocks the Graphiti MCP server needs, and every mismatch in its
config.yaml that would hide the sessions from it (checked on the server's own file layout)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphiti_session_tracking.config import AppConfig, GraphConfig
from graphiti_session_tracking.graph.graphiti_mcp import advise, expand

NEO4J = GraphConfig(backend="neo4j", uri="bolt://db.internal:7687", user="neo4j", database="neo4j")

# The upstream server's config.yaml (getzep/graphiti mcp_server/config/config.yaml), abridged.
UPSTREAM = """
database:
  provider: "falkordb"
  providers:
    falkordb:
      uri: ${FALKORDB_URI:redis://localhost:6379}
    neo4j:
      uri: ${NEO4J_URI:bolt://localhost:7687}
      database: ${NEO4J_DATABASE:neo4j}
embedder:
  provider: "openai"
  model: ${EMBEDDER_MODEL:text-embedding-3-small}
  dimensions: 1536
graphiti:
  group_id: ${GRAPHITI_GROUP_ID:main}
  entity_types:
    - name: "Preference"
      description: "User preferences"
"""


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def _embedding(dimensions: int) -> AppConfig:
    return AppConfig.validate({"embedder": {"enabled": True, "dimensions": dimensions}})


def test_a_matching_config_yaml_gives_no_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.internal:7687")
    advice = advise(_embedding(1536), NEO4J, ["app_1"], None)
    path = _yaml(tmp_path, advice.to_yaml().replace("${NEO4J_PASSWORD}", "pw"))
    assert advise(_embedding(1536), NEO4J, ["app_1"], path).warnings == []
    blocks = yaml.safe_load(advice.to_yaml())
    assert blocks["database"]["providers"]["neo4j"]["uri"] == "bolt://db.internal:7687"
    assert blocks["embedder"] == {"provider": "openai", "model": "text-embedding-3-small", "dimensions": 1536}
    names = [t["name"] for t in blocks["graphiti"]["entity_types"]]
    assert {"Session", "Decision", "ErrorResolution", "ConfigChange", "TestRun"} <= set(names)
    assert blocks["graphiti"]["group_id"] == "app_1"


def test_each_mismatch_of_the_servers_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FALKORDB_URI", raising=False)
    monkeypatch.delenv("EMBEDDER_MODEL", raising=False)
    path = _yaml(tmp_path, UPSTREAM)
    warnings = advise(_embedding(1024), NEO4J, ["app_1", "api_2"], path).warnings
    text = "\n".join(warnings)
    assert "database.provider is falkordb, the sessions are in neo4j" in text
    assert "embedder.dimensions is 1536, the sessions' embeddings have 1024" in text
    assert "lacks Session, Decision, ErrorResolution, ConfigChange, TestRun" in text
    assert "graphiti.group_id is main, which holds no sessions" in text
    assert "in 2 groups; pass them as group_ids" in text


def test_other_database_model_and_missing_embedder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://elsewhere:7687")
    monkeypatch.setenv("EMBEDDER_MODEL", "text-embedding-3-large")
    text = UPSTREAM.replace('provider: "falkordb"', 'provider: "neo4j"', 1)
    warnings = "\n".join(advise(_embedding(1536), NEO4J, ["app_1"], _yaml(tmp_path, text)).warnings)
    assert "uri is bolt://elsewhere:7687, the sessions are at bolt://db.internal:7687" in warnings
    assert "embedder.model is text-embedding-3-large" in warnings
    no_embedder = text.split("embedder:")[0] + "graphiti:\n  group_id: app_1\n"
    warnings = "\n".join(advise(_embedding(1536), NEO4J, ["app_1"], _yaml(tmp_path, no_embedder)).warnings)
    assert "no embedder block, while graphiti-sessions embeds" in warnings


def test_what_the_server_cannot_see_at_all() -> None:
    warnings = "\n".join(advise(AppConfig(), GraphConfig(), [], None).warnings)
    assert "embedded FalkorDB Lite file, which the server cannot open" in warnings
    assert "does not embed" in warnings and "no sessions ingested yet" in warnings


def test_variables_expand_as_the_server_expands_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SET_ONE", "x")
    monkeypatch.delenv("UNSET_ONE", raising=False)
    assert expand({"a": ["${SET_ONE}", "${UNSET_ONE:fallback}", "${UNSET_ONE}"]}) == {
        "a": ["x", "fallback", ""]
    }
