"""What a tool call is, for the walk: its command (without a leading `cd`), its kind (program and
subcommand, or a write of one file) and whether it is a check; failures are matched by kind."""

from __future__ import annotations

import re
from functools import lru_cache

from graphiti_session_tracking.tools.bash import (
    BashAnalyzer,
    SegmentVerdict,
    positionals,
    split_segments,
    tokenize,
)
from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import ToolCall, ToolKind

_ANALYZER = BashAnalyzer()
_judge_line = lru_cache(maxsize=4096)(_ANALYZER.judge_line)  # each command is judged several times
_analyze = lru_cache(maxsize=4096)(_ANALYZER.analyze)
_only_reads_files = lru_cache(maxsize=4096)(_ANALYZER.only_reads_files)
_parts = lru_cache(maxsize=4096)(_ANALYZER.parts)

_CHECK_WORD = re.compile(
    r"(?:^|&&|;|\|)\s*(?:(?:mise|make|just|task|npm|pnpm|yarn|bun|deno|uv|poetry|hatch|tox|nox|go|cargo|"
    r"dotnet|mvn|gradle|swift)\b[^|;&]*?[\s:](?:test|tests|lint|check|build|vet|typecheck|ci|clippy|compile|"
    r"verify)(?:$|[\s:])|(?:tsc|pytest|ruff|mypy|eslint|golangci-lint)\b)",
)

Key = tuple[str, ...]
_PASTED: Key = ("pasted",)


def _bare(command: str) -> str:
    """The command without the `cd somewhere &&` it starts with."""
    return " ".join(re.sub(r"^(?:\s*cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*&&)+", "", command).split())


def _verdict(call: ToolCall) -> SegmentVerdict | None:
    command = _command(call)
    return _judge_line(command) if command else None


def reads_files_only(call: ToolCall) -> bool:
    """A command whose every part reads files or searches code: the shell doing a Read's or a
    Grep's work (stricter than a lookup's verdict, which also counts `git status`)."""
    command = _command(call)
    return bool(command) and _only_reads_files(command)


def parts(call: ToolCall) -> list[tuple[str, SegmentVerdict | None]]:
    """The simple commands of a call's command line, each with its verdict."""
    command = _command(call)
    return _parts(command) if command else []


_FILTER = re.compile(r"\|\s*(?:e?grep|rg)\b")
# grep's options that take the next word as their value (`-A 5`, `-m 1`), not as the pattern.
_GREP_VALUE_FLAGS = frozenset({"-A", "-B", "-C", "-m", "--max-count", "-f", "--file", "-g", "--glob", "-t"})


def hides(call: ToolCall, line: str) -> bool:
    """Whether the command pipes its output through a `grep` that would not let `line` through
    (`tsc | grep -E "ezoic"`, `pytest | grep -v Error`): its run cannot show that line, so a clean
    run proves nothing about it. A pattern that does not compile hides what it may."""
    command = _command(call)
    if not _FILTER.search(command):
        return False
    tokens, _ = tokenize(command)
    for segment in split_segments(tokens):
        words = segment.words
        if not segment.piped or not words or words[0] not in ("grep", "egrep", "rg"):
            continue
        flags = [w for w in words[1:] if w.startswith("-")]
        patterns = positionals(words[1:], _GREP_VALUE_FLAGS)[:1]
        if not patterns:
            continue
        letters = "".join(f.lstrip("-") for f in flags if not f.startswith("--"))
        fixed = "F" in letters or "--fixed-strings" in flags
        try:
            pattern = re.compile(
                re.escape(patterns[0]) if fixed else patterns[0].replace("\\|", "|"),
                re.IGNORECASE if "i" in letters or "--ignore-case" in flags else 0,
            )
        except re.error:
            return True
        shown = bool(pattern.search(line))
        if shown == ("v" in letters or "--invert-match" in flags):
            return True
    return False


def _command(call: ToolCall) -> str:
    command = call.input.get("command") if call.kind is ToolKind.COMMAND else None
    return command if isinstance(command, str) else ""


def _is_check(call: ToolCall) -> bool:
    """A test, build, lint or type check, also through a task runner (`mise run test:ci`)."""
    verdict = _verdict(call)
    if verdict is not None and verdict.kind.intent == ToolIntent.VALIDATE:
        return True
    return bool(_CHECK_WORD.search(_command(call)))


def _kind_key(call: ToolCall) -> Key:
    """What makes two calls 'the same kind': program and subcommand, or a write of the same file."""
    if call.kind is not ToolKind.COMMAND:
        path = call.input.get("file_path") or call.input.get("notebook_path")
        return ("file", path if isinstance(path, str) and path else call.name)
    verdict = _verdict(call)
    if verdict is None or not verdict.base:
        # An unknown program: named past what feeds it input (`yes | npx create-app` is `npx create-app`).
        unknown = _analyze(_command(call)).classification
        if unknown.base_command:
            return (call.name, unknown.base_command, *([unknown.subcommand] if unknown.subcommand else []))
        words = _command(call).split()
        return (call.name, words[0] if words else "")
    if verdict.subcommand:
        return (call.name, verdict.base, verdict.subcommand)
    if verdict.kind.what in ("runs a script", "runs inline code") and verdict.args:
        return (call.name, verdict.base, verdict.args[0])  # `python a.py` is not `python b.py`
    return (call.name, verdict.base)
