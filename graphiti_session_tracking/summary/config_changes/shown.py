"""A configuration file's whole text as a shell command showed it to the agent (`cat ci.yml`,
`sed -n '1,200p' Cargo.toml` that printed fewer lines than asked): the text an edit of only a
fragment applies to, so that its settings get their sections and parents. Codex CLI and Gemini
CLI read files this way; their edits carry no copy of the file, as Claude Code's do."""

from __future__ import annotations

import posixpath
import re
import shlex

from graphiti_session_tracking.transcripts import ToolCall, ToolKind

# `sed -n '1,200p' FILE` (or `1,200 p`): the first 200 lines; whole when fewer came out.
_FIRST_LINES = re.compile(r"1,(\d+)\s*p")
# An agent's own cut of a long output (Codex: `[... omitted 120 of 480 lines ...]`).
_OMITTED = re.compile(r"^\s*\[?\s*(?:\.\.\.|…)[^\n]*\b(?:omitted|truncated)\b", re.IGNORECASE | re.MULTILINE)


def shown_file(call: ToolCall) -> tuple[str, str] | None:
    """(path as written, whole text) when the call is one command that printed one file whole:
    `cat FILE`, or `sed -n '1,Np' FILE` that printed fewer than N lines. Anything more (a pipe,
    several files, a `cd`, a range from elsewhere) shows a part or a mix, never taken for the file."""
    if call.kind is not ToolKind.COMMAND or not call.succeeded or call.result is None:
        return None
    command = call.input.get("command")
    if not isinstance(command, str) or any(c in command for c in "|;&<>`$\n"):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    text = call.result.text
    if len(words) == 2 and words[0] == "cat" and not words[1].startswith("-"):
        path = words[1]
    elif len(words) == 4 and words[:2] == ["sed", "-n"] and (first := _FIRST_LINES.fullmatch(words[2])):
        if len(text.splitlines()) >= int(first.group(1)):
            return None  # it may have stopped where it was told to, before the end
        path = words[3]
    else:
        return None
    if not text.strip() or path.startswith("-") or _OMITTED.search(text):
        return None
    return posixpath.normpath(path), text
