"""Heuristics for native Claude Code tools and for tools known only by their name words."""

from __future__ import annotations

import pytest

from graphiti_session_tracking.tools import (
    NATIVE_TOOLS,
    ToolClassifier,
    ToolDomain,
    ToolIntent,
    classify_by_name,
    classify_heuristic,
    fallback_classification,
    file_kind,
    split_mcp_name,
    split_words,
)
from graphiti_session_tracking.tools.files import FileKind


def test_spec_heuristic_mcp_find_symbol(tmp_path) -> None:
    classifier = ToolClassifier(llm_client=None, cache_path=tmp_path / "c.json")
    result = classifier.try_heuristic("mcp__serena__find_symbol")
    assert result is not None
    assert result.intent == ToolIntent.SEARCH
    assert result.domain == ToolDomain.CODE
    assert result.confidence >= 0.5
    assert result.source == "heuristic"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("find_symbol", ["find", "symbol"]),
        ("getFileContents", ["get", "file", "contents"]),
        ("browser-navigate", ["browser", "navigate"]),
        ("parseHTTPResponse", ["parse", "http", "response"]),
    ],
)
def test_split_words(name: str, words: list[str]) -> None:
    assert split_words(name) == words


def test_split_mcp_name() -> None:
    assert split_mcp_name("mcp__github__create_pull_request") == ("github", "create_pull_request")
    assert split_mcp_name("mcp__my_server__do__thing") == ("my_server", "do__thing")
    assert split_mcp_name("Read") is None
    assert split_mcp_name("mcp__only") is None


def test_words_not_substrings() -> None:
    """The spec's substring match reads `address` as `add` and `latest` as `test`; words do not."""
    address = classify_by_name("mcp__crm__address_lookup", {})
    assert address is not None
    assert address.intent == ToolIntent.SEARCH  # lookup, not create
    assert classify_by_name("mcp__news__latest_headlines", {}) is None
    assert classify_by_name("mcp__x__contest_entries", {}) is None
    adder = classify_by_name("mcp__crm__add_contact", {})
    assert adder is not None and adder.intent == ToolIntent.CREATE


@pytest.mark.parametrize(
    ("name", "intent", "domain"),
    [
        ("mcp__github__create_pull_request", ToolIntent.CREATE, ToolDomain.VERSION_CONTROL),
        ("mcp__graphiti__add_memory", ToolIntent.CREATE, ToolDomain.MEMORY),
        ("mcp__graphiti__search_nodes", ToolIntent.SEARCH, ToolDomain.MEMORY),
        ("mcp__filesystem__read_text_file", ToolIntent.READ, ToolDomain.FILESYSTEM),
        ("mcp__postgres__query", ToolIntent.SEARCH, ToolDomain.DATABASE),
        ("mcp__serena__replace_symbol_body", ToolIntent.MODIFY, ToolDomain.CODE),
        ("mcp__playwright__browser_navigate", ToolIntent.COMMUNICATE, ToolDomain.NETWORK),
        ("mcp__memory__delete_entities", ToolIntent.DELETE, ToolDomain.MEMORY),
    ],
)
def test_mcp_names(name: str, intent: ToolIntent, domain: ToolDomain) -> None:
    result = classify_by_name(name, {"x": 1})
    assert result is not None
    assert (result.intent, result.domain) == (intent, domain)
    assert result.confidence >= 0.7
    assert result.tool_params == {"x": 1}
    assert result.activity_signals


def test_intent_without_domain_is_below_threshold(tmp_path) -> None:
    result = classify_by_name("mcp__acme__frobnicate_widget_run", {})
    assert result is not None and result.domain == ToolDomain.UNKNOWN
    assert result.confidence < 0.6
    assert ToolClassifier(None, tmp_path / "c.json").try_heuristic("mcp__acme__frobnicate_widget_run") is None


def test_unknown_names_return_none() -> None:
    assert classify_heuristic("mcp__acme__zorblax", {}) is None
    assert classify_heuristic("Frobnicator", None) is None


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("tests/test_math_utils.py", FileKind.TEST),
        ("src/foo.test.ts", FileKind.TEST),
        ("pkg/handler_test.go", FileKind.TEST),
        ("tests/conftest.py", FileKind.TEST),
        ("README.md", FileKind.DOCS),
        ("docs/guide/index.html", FileKind.DOCS),
        ("pyproject.toml", FileKind.CONFIG),
        (".github/workflows/ci.yml", FileKind.CONFIG),
        ("requirements-dev.txt", FileKind.CONFIG),
        (".gitignore", FileKind.CONFIG),
        ("src/app/main.py", FileKind.CODE),
        ("notes/log.txt", FileKind.OTHER),
        ("latest.py", FileKind.CODE),
    ],
)
def test_file_kind(path: str, kind: FileKind) -> None:
    assert file_kind(path) is kind


def _top(signals: dict[str, float]) -> str:
    return max(signals, key=lambda k: signals[k])


@pytest.mark.parametrize(
    ("tool", "path", "intent", "top"),
    [
        ("Write", "/p/tests/test_api.py", ToolIntent.CREATE, "testing"),
        ("Write", "/p/README.md", ToolIntent.CREATE, "documenting"),
        ("Write", "/p/pyproject.toml", ToolIntent.CREATE, "configuring"),
        ("Write", "/p/src/api.py", ToolIntent.CREATE, "building"),
        ("Edit", "/p/docs/usage.md", ToolIntent.MODIFY, "documenting"),
        ("Edit", "/p/.github/workflows/ci.yml", ToolIntent.MODIFY, "configuring"),
        ("MultiEdit", "/p/tests/test_api.py", ToolIntent.MODIFY, "testing"),
        ("Read", "/p/src/api.py", ToolIntent.READ, "exploring"),
    ],
)
def test_file_tools(tool: str, path: str, intent: ToolIntent, top: str) -> None:
    result = classify_heuristic(tool, {"file_path": path, "content": "x"})
    assert result is not None
    assert result.intent == intent
    assert _top(result.activity_signals) == top
    assert result.confidence >= 0.85
    assert path in result.reasoning


def test_edit_code_spreads_over_building_fixing_refactoring() -> None:
    result = classify_heuristic("Edit", {"file_path": "src/a.py", "old_string": "a", "new_string": "b"})
    assert result is not None and result.domain == ToolDomain.CODE
    assert {"building", "fixing", "refactoring"} <= set(result.activity_signals)
    renamed = classify_heuristic("Edit", {"file_path": "src/a.py", "replace_all": True})
    assert renamed is not None
    assert renamed.activity_signals["refactoring"] > result.activity_signals["refactoring"]


@pytest.mark.parametrize(
    ("tool", "params", "intent", "domain"),
    [
        ("Grep", {"pattern": "def main"}, ToolIntent.SEARCH, ToolDomain.CODE),
        ("Glob", {"pattern": "**/*.py"}, ToolIntent.SEARCH, ToolDomain.FILESYSTEM),
        ("LS", {"path": "/p"}, ToolIntent.READ, ToolDomain.FILESYSTEM),
        ("WebFetch", {"url": "https://x"}, ToolIntent.READ, ToolDomain.NETWORK),
        ("WebSearch", {"query": "q"}, ToolIntent.SEARCH, ToolDomain.NETWORK),
        ("NotebookEdit", {"notebook_path": "a.ipynb"}, ToolIntent.MODIFY, ToolDomain.CODE),
        ("NotebookRead", {"notebook_path": "a.ipynb"}, ToolIntent.READ, ToolDomain.CODE),
        ("BashOutput", {"bash_id": "1"}, ToolIntent.READ, ToolDomain.PROCESS),
        ("KillShell", {"shell_id": "1"}, ToolIntent.EXECUTE, ToolDomain.PROCESS),
        ("TodoWrite", {"todos": []}, ToolIntent.MODIFY, ToolDomain.MEMORY),
        ("TodoRead", {}, ToolIntent.READ, ToolDomain.MEMORY),
        ("ExitPlanMode", {"plan": "p"}, ToolIntent.COMMUNICATE, ToolDomain.MEMORY),
        ("AskUserQuestion", {"questions": []}, ToolIntent.COMMUNICATE, ToolDomain.UNKNOWN),
        ("Skill", {"skill": "write-tests"}, ToolIntent.EXECUTE, ToolDomain.PROCESS),
        ("SlashCommand", {"command": "/review-pr 12"}, ToolIntent.EXECUTE, ToolDomain.PROCESS),
    ],
)
def test_other_native_tools(
    tool: str, params: dict[str, object], intent: ToolIntent, domain: ToolDomain
) -> None:
    result = classify_heuristic(tool, params)
    assert result is not None
    assert (result.intent, result.domain) == (intent, domain)
    assert result.confidence >= 0.7
    assert tool.lower() in NATIVE_TOOLS


def test_keywords_of_skills_tasks_and_commands() -> None:
    skill = classify_heuristic("Skill", {"skill": "write-tests"})
    assert skill is not None and "testing" in skill.activity_signals
    command = classify_heuristic("SlashCommand", {"command": "/review-pr 12"})
    assert command is not None and "reviewing" in command.activity_signals
    task = classify_heuristic(
        "Task", {"description": "Fix the failing login bug", "subagent_type": "general"}
    )
    assert task is not None and "fixing" in task.activity_signals
    explore = classify_heuristic("Task", {"description": "Look around", "subagent_type": "Explore"})
    assert explore is not None and explore.activity_signals == {"exploring": 0.4}


def test_fallback_is_low_confidence() -> None:
    unknown = fallback_classification("Zorblax", {"a": 1})
    assert unknown.confidence <= 0.4 and unknown.activity_signals == {}
    partial = classify_by_name("mcp__acme__run_widget", {})
    assert partial is not None
    guessed = fallback_classification("mcp__acme__run_widget", {}, partial)
    assert guessed.confidence <= 0.4
    assert guessed.intent == partial.intent
    assert all(guessed.activity_signals[k] < v for k, v in partial.activity_signals.items())
