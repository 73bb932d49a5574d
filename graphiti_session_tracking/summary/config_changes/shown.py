"""A configuration file's whole text as the agent was shown it: by a shell command (`cat ci.yml`,
`sed -n '1,200p' Cargo.toml` that printed fewer lines than asked) or a read tool that returns the
file as it is (Gemini CLI's `read_file`). It is the text an edit of only a fragment applies to,
so that its settings get their sections and parents: Codex CLI's and Gemini CLI's edits carry no
copy of the file, as Claude Code's do."""

from __future__ import annotations

import posixpath
import re
import shlex

from graphiti_session_tracking.transcripts import ToolCall, ToolKind

from .formats import config_parser

# `sed -n '1,200p' FILE` (or `1,200 p`): the first 200 lines; whole when fewer came out.
_FIRST_LINES = re.compile(r"1,(\d+)\s*p")
# An agent's own cut of a long output (Codex: `[... omitted 120 of 480 lines ...]`).
_OMITTED = re.compile(
    r"^\s*(?:\[?\s*(?:\.\.\.|…)|\[)[^\n]*\b(?:omitted|truncated)\b", re.IGNORECASE | re.MULTILINE
)
# A read tool's listing with line numbers (Claude Code's `  12→`, OpenCode's `00012| `): not the
# file as written.
_NUMBERED = re.compile(r"^\s*\d+(?:→|\| |\t)", re.MULTILINE)
# A read tool's input that asks for part of the file.
_PART = frozenset({"offset", "limit", "start_line", "end_line", "line_range", "lines"})


def shown_file(call: ToolCall) -> tuple[str, str] | None:
    """(path as written, whole text) when the call showed one configuration file whole: a read of
    all of it that returns its text as written, `cat FILE`, or `sed -n '1,Np' FILE` that printed
    fewer than N lines. Anything more (a pipe, several files, a `cd`, a range, line numbers, an
    output the agent cut) shows a part or a mix, never taken for the file. Other files are not
    kept: only an edit of configuration needs the text."""
    if not call.succeeded or call.result is None:
        return None
    shown = _path_shown(call)
    if shown is None or shown[0].startswith("-") or config_parser(shown[0]) is None:
        return None
    path, at_most = shown
    text = call.result.text
    if not text.strip() or _OMITTED.search(text):
        return None
    if call.kind is ToolKind.READ and (_NUMBERED.search(text) or text.startswith("<")):
        return None
    if at_most is not None and len(text.splitlines()) >= at_most:
        return None  # `sed` may have stopped where it was told to, before the end
    return path, text


def _path_shown(call: ToolCall) -> tuple[str, int | None] | None:
    """The one file the call shows whole if it succeeded, by its input alone, and the most lines
    it prints (`sed -n '1,Np'`)."""
    if call.kind is ToolKind.READ:
        path = call.input.get("file_path")
        if isinstance(path, str) and not _PART & set(call.input):
            return posixpath.normpath(path), None
        return None
    command = call.input.get("command") if call.kind is ToolKind.COMMAND else None
    if not isinstance(command, str) or not command.startswith(("cat ", "sed ")):
        return None
    if any(c in command for c in "|;&<>`$\n"):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) == 2 and words[0] == "cat":
        return posixpath.normpath(words[1]), None
    if len(words) == 4 and words[:2] == ["sed", "-n"] and (first := _FIRST_LINES.fullmatch(words[2])):
        return posixpath.normpath(words[3]), int(first.group(1))
    return None
