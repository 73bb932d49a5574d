"""The command channel: a failed command run again with a flag that skips the failing check is a
choice, whatever the prose says."""

from __future__ import annotations

import re
from collections.abc import Iterator

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from .record import STATED, _Found, _record

# --- A failed command run again with a flag that goes around the failure ------------------------

# Flags that skip a check rather than fix what it found: re-running a failed command with one is
# a choice (to go around the failure), whatever the prose says.
_BYPASS_FLAGS = frozenset(
    {
        "--no-gpg-sign",
        "--no-verify",
        "--force",
        "-f",
        "--legacy-peer-deps",
        "--ignore-scripts",
        "--break-system-packages",
        "--no-build-isolation",
        "--insecure",
        "--no-check-certificate",
        "--allow-dirty",
        "--skip-checks",
    }
)


def _bypassed(session: Session) -> Iterator[_Found]:
    """ "Committed with --no-gpg-sign after `git commit` failed (gpg failed to sign the data)"."""
    from ..errors import failure_lines

    failed: dict[tuple[str, ...], tuple[ToolCall, str]] = {}
    for call in session.tool_calls:
        if call.kind is not ToolKind.COMMAND or call.result is None:
            continue
        words = _first_command(str(call.input.get("command", "")))
        head = tuple(w for w in words[:3] if not w.startswith("-"))[:2]
        if not head:
            continue
        lines = failure_lines(call)
        if lines:
            failed[head] = (call, lines[0])
            continue
        earlier = failed.pop(head, None)
        if earlier is None:
            continue
        before = set(_first_command(str(earlier[0].input.get("command", ""))))
        added = [w for w in words if w in _BYPASS_FLAGS and w not in before]
        if added:
            shown = " ".join(_until_quoted(words))
            decision = f"Re-ran `{shown}` with {' '.join(added)} to get past the failure"
            yield _Found(
                call.line, _record(decision, f"It failed with: {earlier[1]}", [], STATED, "assistant")
            )


def _until_quoted(words: list[str]) -> list[str]:
    """The command's words up to its first quoted or substituted argument (a message, a heredoc)."""
    shown: list[str] = []
    for word in words[:8]:
        if word[:1] in "'\"$(`" or len(word) > 60:
            return [*shown, "…"]
        shown.append(word)
    return shown if len(words) <= 8 else [*shown, "…"]


def _first_command(command: str) -> list[str]:
    """The words of a command line's first command that is not a `cd`."""
    for part in re.split(r"&&|\|\||;|\n", command):
        words = part.split()
        if words and words[0] != "cd":
            return words
    return []
