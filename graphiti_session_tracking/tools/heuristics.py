"""Classification without an LLM: Claude Code's native tools, and tools known by their name words.

Native tools are known exactly; their arguments (the file path of a Write, the description of a
Task) refine the activity signals. MCP tools (`mcp__<server>__<tool>`) and other named tools are
matched on the WORDS of the tool name (`find_symbol`, `getFileContents`), never on substrings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .files import file_kind, file_signals, kind_domain
from .model import ToolClassification, ToolDomain, ToolIntent
from .signals import intent_signals, merge_signals, split_words

# Name-word confidence: intent and domain both recognised, only the intent, and the bonus when
# the intent is the first word (verb-first names like `find_symbol` are the usual convention).
NAME_MATCH_CONFIDENCE = 0.7
INTENT_ONLY_CONFIDENCE = 0.5
VERB_FIRST_BONUS = 0.05
FALLBACK_CONFIDENCE = 0.3

_INTENT_WORDS: dict[ToolIntent, frozenset[str]] = {
    ToolIntent.DELETE: frozenset(
        {"delete", "remove", "clear", "drop", "purge", "destroy", "rm", "unlink", "erase", "forget"}
    ),
    ToolIntent.SEARCH: frozenset({"search", "find", "grep", "query", "lookup", "locate", "match", "scan"}),
    ToolIntent.VALIDATE: frozenset(
        {"test", "tests", "check", "validate", "verify", "lint", "assert", "diagnose", "diagnostics"}
    ),
    ToolIntent.CONFIGURE: frozenset(
        {"config", "configure", "setup", "init", "install", "enable", "disable", "settings"}
    ),
    ToolIntent.MODIFY: frozenset(
        {"edit", "update", "modify", "replace", "patch", "change", "rename", "move", "set", "apply", "append"}
    ),
    ToolIntent.CREATE: frozenset(
        {"write", "create", "add", "new", "insert", "make", "save", "generate", "store", "upload", "put"}
    ),
    ToolIntent.READ: frozenset(
        {
            "read",
            "get",
            "fetch",
            "list",
            "show",
            "retrieve",
            "view",
            "open",
            "describe",
            "inspect",
            "load",
            "status",
            "info",
            "snapshot",
            "screenshot",
            "download",
        }
    ),
    ToolIntent.EXECUTE: frozenset(
        {
            "run",
            "exec",
            "execute",
            "invoke",
            "call",
            "start",
            "launch",
            "trigger",
            "evaluate",
            "eval",
            "click",
        }
    ),
    ToolIntent.COMMUNICATE: frozenset(
        {"send", "post", "notify", "message", "comment", "reply", "email", "publish", "navigate", "chat"}
    ),
    ToolIntent.TRANSFORM: frozenset(
        {"convert", "transform", "format", "parse", "render", "translate", "compile", "encode", "decode"}
    ),
}

_DOMAIN_WORDS: dict[ToolDomain, frozenset[str]] = {
    ToolDomain.VERSION_CONTROL: frozenset(
        {"git", "github", "gitlab", "commit", "branch", "merge", "push", "pull", "repo", "repository", "pr"}
    ),
    ToolDomain.TESTING: frozenset({"test", "tests", "pytest", "jest", "spec", "coverage"}),
    ToolDomain.MEMORY: frozenset(
        {"memory", "memories", "remember", "episode", "episodes", "knowledge", "graphiti", "note", "notes"}
    ),
    ToolDomain.DATABASE: frozenset(
        {"db", "database", "sql", "sqlite", "postgres", "mysql", "neo4j", "table", "tables", "cypher"}
    ),
    ToolDomain.CODE: frozenset(
        {
            "symbol",
            "symbols",
            "code",
            "ast",
            "syntax",
            "serena",
            "function",
            "class",
            "definition",
            "references",
        }
    ),
    ToolDomain.FILESYSTEM: frozenset(
        {"file", "files", "dir", "directory", "path", "folder", "fs", "filesystem"}
    ),
    ToolDomain.NETWORK: frozenset(
        {"http", "api", "request", "url", "web", "browser", "page", "playwright", "puppeteer", "fetch"}
    ),
    ToolDomain.PROCESS: frozenset({"bash", "shell", "process", "cmd", "terminal", "command"}),
    ToolDomain.PACKAGE: frozenset(
        {"npm", "pip", "cargo", "package", "packages", "dependency", "dependencies"}
    ),
    ToolDomain.DOCUMENTATION: frozenset({"doc", "docs", "documentation", "readme", "markdown", "library"}),
}

# Keywords in free text (a Task description, a skill name) that point at an activity.
_ACTIVITY_WORDS: dict[str, frozenset[str]] = {
    "testing": frozenset({"test", "tests", "testing", "coverage", "pytest", "spec"}),
    "fixing": frozenset({"fix", "bug", "bugs", "debug", "error", "errors", "failing", "broken", "issue"}),
    "exploring": frozenset({"explore", "research", "investigate", "understand", "find", "search", "analyze"}),
    "reviewing": frozenset({"review", "audit", "check", "inspect", "verify"}),
    "refactoring": frozenset({"refactor", "rename", "restructure", "cleanup", "simplify", "port"}),
    "documenting": frozenset({"doc", "docs", "document", "documentation", "readme", "changelog"}),
    "configuring": frozenset({"config", "configure", "setup", "install", "deploy", "environment"}),
    "building": frozenset({"implement", "build", "create", "add", "feature", "write"}),
}


def keyword_signals(text: str, weight: float = 0.4) -> dict[str, float]:
    """Activity signals from the words of free text: each dimension mentioned gets `weight`."""
    words = set(split_words(text))
    return {dim: weight for dim, keys in _ACTIVITY_WORDS.items() if words & keys}


_NativeRule = Callable[[str, Mapping[str, Any]], ToolClassification]


def _tool(
    name: str,
    params: Mapping[str, Any] | None,
    intent: ToolIntent,
    domain: ToolDomain,
    confidence: float,
    reasoning: str,
    signals: Mapping[str, float],
) -> ToolClassification:
    return ToolClassification(
        tool_name=name,
        tool_params=dict(params) if params is not None else None,
        intent=intent,
        domain=domain,
        confidence=confidence,
        reasoning=reasoning,
        activity_signals=merge_signals(signals),
        source="heuristic",
    )


def _path_of(params: Mapping[str, Any]) -> str:
    for key in ("file_path", "notebook_path", "path"):
        value = params.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _file_tool(intent: ToolIntent, verb: str) -> _NativeRule:
    def rule(name: str, params: Mapping[str, Any]) -> ToolClassification:
        path = _path_of(params)
        kind = file_kind(path)
        signals = file_signals(intent, kind)
        if intent is ToolIntent.MODIFY and params.get("replace_all") is True:
            signals = merge_signals(signals, {"refactoring": 0.2})
        where = f"{kind.value} file {path}" if path else "a file"
        return _tool(name, params, intent, kind_domain(kind), 0.9, f"{verb} {where}", signals)

    return rule


def _fixed(
    intent: ToolIntent, domain: ToolDomain, confidence: float, reasoning: str, signals: Mapping[str, float]
) -> _NativeRule:
    def rule(name: str, params: Mapping[str, Any]) -> ToolClassification:
        return _tool(name, params, intent, domain, confidence, reasoning, signals)

    return rule


def _grep(name: str, params: Mapping[str, Any]) -> ToolClassification:
    pattern = str(params.get("pattern", ""))
    signals = merge_signals({"exploring": 0.5, "reviewing": 0.2}, keyword_signals(pattern, 0.1))
    return _tool(
        name, params, ToolIntent.SEARCH, ToolDomain.CODE, 0.9, f"searches code for {pattern!r}", signals
    )


def _glob(name: str, params: Mapping[str, Any]) -> ToolClassification:
    pattern = str(params.get("pattern", ""))
    signals = merge_signals({"exploring": 0.6}, keyword_signals(pattern, 0.1))
    return _tool(
        name, params, ToolIntent.SEARCH, ToolDomain.FILESYSTEM, 0.9, f"finds files {pattern!r}", signals
    )


def _task(name: str, params: Mapping[str, Any]) -> ToolClassification:
    """A sub-agent: what it was asked to do says what it contributes."""
    agent = str(params.get("subagent_type", ""))
    text = " ".join(str(params.get(k, "")) for k in ("subagent_type", "description"))
    signals = keyword_signals(text, 0.4)
    if "exploring" not in signals and (agent.lower() in {"explore", "plan"} or not signals):
        signals = merge_signals(signals, {"exploring": 0.4})
    what = params.get("description") or agent or "a sub-agent"
    return _tool(name, params, ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.75, f"delegates: {what}", signals)


def _named_command(key: str) -> _NativeRule:
    """Skills and slash commands: the name of what is invoked is the only hint."""

    def rule(name: str, params: Mapping[str, Any]) -> ToolClassification:
        invoked = str(params.get(key, "") or params.get("command", "") or params.get("skill", ""))
        signals = keyword_signals(invoked, 0.4)
        return _tool(
            name, params, ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.7, f"invokes {invoked!r}", signals
        )

    return rule


_NATIVE: dict[str, _NativeRule] = {
    "read": _file_tool(ToolIntent.READ, "reads"),
    "notebookread": _file_tool(ToolIntent.READ, "reads"),
    "write": _file_tool(ToolIntent.CREATE, "writes"),
    "edit": _file_tool(ToolIntent.MODIFY, "edits"),
    "multiedit": _file_tool(ToolIntent.MODIFY, "edits"),
    "notebookedit": _file_tool(ToolIntent.MODIFY, "edits"),
    "grep": _grep,
    "glob": _glob,
    "ls": _fixed(ToolIntent.READ, ToolDomain.FILESYSTEM, 0.9, "lists a folder", {"exploring": 0.5}),
    "lsp": _fixed(ToolIntent.SEARCH, ToolDomain.CODE, 0.85, "asks the language server", {"exploring": 0.5}),
    "webfetch": _fixed(
        ToolIntent.READ, ToolDomain.NETWORK, 0.85, "reads a web page", {"exploring": 0.7, "reviewing": 0.1}
    ),
    "websearch": _fixed(ToolIntent.SEARCH, ToolDomain.NETWORK, 0.9, "searches the web", {"exploring": 0.8}),
    "bash": _fixed(ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.5, "runs a shell command", {"building": 0.1}),
    "bashoutput": _fixed(
        ToolIntent.READ, ToolDomain.PROCESS, 0.85, "reads a background shell's output", {"reviewing": 0.2}
    ),
    "taskoutput": _fixed(
        ToolIntent.READ, ToolDomain.PROCESS, 0.85, "reads a background task's output", {"reviewing": 0.2}
    ),
    "killshell": _fixed(ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.85, "stops a background shell", {}),
    "killbash": _fixed(ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.85, "stops a background shell", {}),
    "taskstop": _fixed(ToolIntent.EXECUTE, ToolDomain.PROCESS, 0.85, "stops a background task", {}),
    "task": _task,
    "agent": _task,
    "todowrite": _fixed(
        ToolIntent.MODIFY, ToolDomain.MEMORY, 0.9, "updates the task list", {"building": 0.1}
    ),
    "todoread": _fixed(ToolIntent.READ, ToolDomain.MEMORY, 0.9, "reads the task list", {}),
    "taskcreate": _fixed(ToolIntent.CREATE, ToolDomain.MEMORY, 0.85, "adds a task", {"building": 0.1}),
    "taskupdate": _fixed(ToolIntent.MODIFY, ToolDomain.MEMORY, 0.85, "updates a task", {"building": 0.1}),
    "tasklist": _fixed(ToolIntent.READ, ToolDomain.MEMORY, 0.85, "lists tasks", {}),
    "taskget": _fixed(ToolIntent.READ, ToolDomain.MEMORY, 0.85, "reads a task", {}),
    "exitplanmode": _fixed(
        ToolIntent.COMMUNICATE,
        ToolDomain.MEMORY,
        0.85,
        "presents a plan",
        {"exploring": 0.2, "building": 0.1},
    ),
    "enterplanmode": _fixed(
        ToolIntent.CONFIGURE, ToolDomain.MEMORY, 0.85, "starts planning", {"exploring": 0.2}
    ),
    "askuserquestion": _fixed(
        ToolIntent.COMMUNICATE, ToolDomain.UNKNOWN, 0.85, "asks the user", {"exploring": 0.2}
    ),
    "skill": _named_command("skill"),
    "slashcommand": _named_command("command"),
    "listmcpresourcestool": _fixed(
        ToolIntent.READ, ToolDomain.NETWORK, 0.8, "lists MCP resources", {"exploring": 0.4}
    ),
    "readmcpresourcetool": _fixed(
        ToolIntent.READ, ToolDomain.NETWORK, 0.8, "reads an MCP resource", {"exploring": 0.4}
    ),
}

NATIVE_TOOLS: frozenset[str] = frozenset(_NATIVE)


def classify_native(name: str, params: Mapping[str, Any] | None) -> ToolClassification | None:
    """A native Claude Code tool, or None when `name` is not one."""
    rule = _NATIVE.get(name.lower())
    return rule(name, params or {}) if rule else None


def split_mcp_name(name: str) -> tuple[str, str] | None:
    """`mcp__<server>__<tool>` → (server, tool); None for other names."""
    parts = name.split("__", 2)
    if len(parts) == 3 and parts[0] == "mcp" and parts[1] and parts[2]:
        return parts[1], parts[2]
    return None


def _match_intent(words: list[str]) -> tuple[ToolIntent, int] | None:
    """The first word (in name order) that names an intent, and its position."""
    for position, word in enumerate(words):
        for intent, keys in _INTENT_WORDS.items():
            if word in keys:
                return intent, position
    return None


def _match_domain(words: list[str]) -> ToolDomain | None:
    for domain, keys in _DOMAIN_WORDS.items():
        if any(word in keys for word in words):
            return domain
    return None


def classify_by_name(name: str, params: Mapping[str, Any] | None) -> ToolClassification | None:
    """Word matching on a tool's name; None when no word names an intent (an LLM must judge).

    For MCP tools the tool part gives intent and domain; the server name (`github`, `serena`)
    may give the domain. Without a recognised domain the match is only INTENT_ONLY_CONFIDENCE.
    """
    mcp = split_mcp_name(name)
    server, tool = mcp if mcp else ("", name)
    tool_words = split_words(tool)
    matched = _match_intent(tool_words)
    if matched is None:
        return None
    intent, position = matched
    domain = _match_domain(tool_words) or _match_domain(split_words(server))
    if domain is None:
        confidence = INTENT_ONLY_CONFIDENCE
        domain = ToolDomain.UNKNOWN
    else:
        confidence = NAME_MATCH_CONFIDENCE
    if position == 0:
        confidence += VERB_FIRST_BONUS
    where = f" on MCP server {server!r}" if server else ""
    reasoning = f"name words {tool_words} read as {intent.value} in {domain.value}{where}"
    return _tool(
        name, params, intent, domain, round(confidence, 3), reasoning, intent_signals(intent, domain)
    )


def classify_heuristic(name: str, params: Mapping[str, Any] | None) -> ToolClassification | None:
    """Native tools first, then name words; None when nothing is known about `name`."""
    return classify_native(name, params) or classify_by_name(name, params)


def fallback_classification(
    name: str, params: Mapping[str, Any] | None, partial: ToolClassification | None = None
) -> ToolClassification:
    """What to say when neither heuristics nor an LLM could place a tool: a guess, at most 0.4.

    A partial name match keeps its intent and domain (with halved signals); with nothing at all
    the call is an execution of something unknown, with no activity signal.
    """
    if partial is not None:
        return partial.model_copy(
            update={
                "confidence": min(partial.confidence, FALLBACK_CONFIDENCE),
                "activity_signals": merge_signals(partial.activity_signals, weights=[0.5]),
                "reasoning": f"unconfirmed guess: {partial.reasoning}",
            }
        )
    return _tool(
        name,
        params,
        ToolIntent.EXECUTE,
        ToolDomain.UNKNOWN,
        0.1,
        f"unknown tool {name!r}; not classified",
        {},
    )


__all__ = [
    "NATIVE_TOOLS",
    "classify_by_name",
    "classify_heuristic",
    "classify_native",
    "fallback_classification",
    "keyword_signals",
    "split_mcp_name",
]
