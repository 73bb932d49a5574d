"""Config: the shipped JSON Schema matches the models, and bad files are named clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphiti_session_tracking.config import ConfigError, json_schema, load_config

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_schema_is_generated_from_the_models() -> None:
    shipped = json.loads((ROOT / "graphiti.config.schema.json").read_text())
    assert shipped == json_schema(), "run: graphiti-sessions config schema > graphiti.config.schema.json"


def test_yaml_config_is_read_and_env_fills_neo4j(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graphiti.config.yaml"
    path.write_text("graph:\n  backend: neo4j\n  database: sessions\n")
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    config = load_config(path)
    assert config.graph.backend == "neo4j" and config.graph.database == "sessions"
    assert config.graph.uri == "bolt://db.example:7687" and config.graph.password == "pw"


def test_unknown_field_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "graphiti.config.json"
    path.write_text(json.dumps({"graph": {"backnd": "neo4j"}}))
    with pytest.raises(ConfigError, match=r"graphiti\.config\.json: graph\.backnd: Extra inputs"):
        load_config(path)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "graphiti.config.json"
    path.write_text('{\n  "graph": {\n    "backend": neo4j\n  }\n}')
    with pytest.raises(ConfigError, match=r"graphiti\.config\.json:3: invalid JSON"):
        load_config(path)


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")
