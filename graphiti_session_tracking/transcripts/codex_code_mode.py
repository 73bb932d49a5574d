"""Codex's "code mode" (0.15x, Codex Desktop): the model calls one tool, `exec`, whose input is
JavaScript calling the real tools (`tools.exec_command({cmd: "…"})`, `tools.apply_patch(patch)`,
`tools.write_stdin(…)`), and a script still running after its time slice is finished by `wait`
calls naming its cell. Read here into what the other Codex tools give: the commands the script
runs, the patches it applies, and its output without the script's own header.

The script's exit status is not recorded (only its output is), so a command's failure must be
read from what it printed.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from .kinds import ToolKind

__all__ = ["CodeModeScript", "completed_cell", "printed_result", "read_script", "script_output", "waits_for"]

# `cmd: "…"` (or 'cmd': '…') inside a `tools.exec_command({...})` call; string literals as JS
# writes them: double or single quoted with backslash escapes, or a template without `${`.
_STRING = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.|\$(?!\{))*`"
_TOOL_CALL = re.compile(r"\btools\.(\w+)\s*\(")
_CMD = re.compile(rf"[\"']?\bcmd[\"']?\s*:\s*({_STRING})", re.DOTALL)
_WORKDIR = re.compile(rf"[\"']?\bworkdir[\"']?\s*:\s*({_STRING})", re.DOTALL)
_LITERAL = re.compile(_STRING, re.DOTALL)
_HEADER = re.compile(r"\AScript (\w+)(?: with cell ID (\d+))?\n(?:Wall time [^\n]*\n)?(?:Output:\n)?")


@dataclass
class CodeModeScript:
    """What one `exec` script does: the shell commands it runs (one script, in order), where, the
    patches it applies, and, when it does neither, its kind (BACKGROUND: only `write_stdin`,
    feeding or polling a command still running; else OTHER)."""

    commands: list[str] = field(default_factory=list)
    workdir: str | None = None
    patches: list[str] = field(default_factory=list)
    kind: ToolKind = ToolKind.OTHER


def read_script(source: str) -> CodeModeScript:
    """The tools a code-mode script calls, read from its JavaScript."""
    tools = set(_TOOL_CALL.findall(source))
    commands = [_js_string(m.group(1)) for m in _CMD.finditer(source)] if "exec_command" in tools else []
    workdir = _WORKDIR.search(source)
    literals = (_js_string(m.group(0)) for m in _LITERAL.finditer(source))
    patches = [text for text in literals if "*** Begin Patch" in text] if "apply_patch" in tools else []
    return CodeModeScript(
        [c for c in commands if c.strip()],
        _js_string(workdir.group(1)) if workdir else None,
        patches,
        ToolKind.BACKGROUND if tools == {"write_stdin"} else ToolKind.OTHER,
    )


def script_output(text: str) -> tuple[str, str | None]:
    """The script's output without its header, and its state (`completed`, `running`, or how it
    ended otherwise); (text, None) when it has no such header."""
    header = _HEADER.match(text)
    if header is None:
        return text, None
    return text[header.end() :].lstrip("\n"), header.group(1)


def printed_result(text: str) -> tuple[str, int | None]:
    """A command's result the script printed as JSON (`text(JSON.stringify(await exec(...)))`:
    `{"exit_code": 101, "output": "..."}`) as its output and exit status, so a failure reads as
    Claude Code's does (`Exit code 101` first); any other text as it is, with no status."""
    if not text.lstrip().startswith("{"):
        return text, None
    try:
        printed = json.loads(text)
    except ValueError:
        return text, None
    code = printed.get("exit_code", printed.get("exitCode")) if isinstance(printed, dict) else None
    if not isinstance(code, int) or isinstance(code, bool):
        return text, None
    parts = [printed.get(key) for key in ("output", "stdout", "stderr")]
    output = "\n".join(part for part in parts if isinstance(part, str) and part)
    return (f"Exit code {code}\n{output}" if code else output), code


def completed_cell(text: str) -> str | None:
    """The cell a still-running script's output names (`Script running with cell ID 8`)."""
    header = _HEADER.match(text)
    return header.group(2) if header is not None and header.group(1) == "running" else None


def waits_for(arguments: dict[str, object]) -> str | None:
    """The cell a `wait` call polls."""
    cell = arguments.get("cell_id")
    return str(cell) if isinstance(cell, (str, int)) and not isinstance(cell, bool) else None


def _js_string(literal: str) -> str:
    """A JavaScript string literal's value (the escapes JS shares with Python; an unreadable one
    is kept as written, without its quotes)."""
    body = literal[1:-1]
    if literal[0] == "`":
        return re.sub(r"\\(.)", r"\1", body)
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return body
    return value if isinstance(value, str) else body
