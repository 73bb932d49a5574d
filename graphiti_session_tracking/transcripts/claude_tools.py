"""Claude Code's tool names and what each does: the only place past its reader that names them."""

from __future__ import annotations

from .kinds import ToolKind

CLAUDE_TOOL_KINDS: dict[str, ToolKind] = {
    "Bash": ToolKind.COMMAND,
    "PowerShell": ToolKind.COMMAND,
    "BashOutput": ToolKind.BACKGROUND,
    "KillShell": ToolKind.BACKGROUND,
    "KillBash": ToolKind.BACKGROUND,
    "Edit": ToolKind.EDIT,
    "MultiEdit": ToolKind.EDIT,
    "NotebookEdit": ToolKind.EDIT,
    "Write": ToolKind.WRITE,
    "Read": ToolKind.READ,
    "NotebookRead": ToolKind.READ,
    "Grep": ToolKind.SEARCH,
    "Glob": ToolKind.SEARCH,
    "LS": ToolKind.SEARCH,
    "ListMcpResourcesTool": ToolKind.SEARCH,
    "WebFetch": ToolKind.WEB,
    "WebSearch": ToolKind.WEB,
    "Task": ToolKind.SUBAGENT,
    "Agent": ToolKind.SUBAGENT,
    "AskUserQuestion": ToolKind.QUESTION,
    "ExitPlanMode": ToolKind.PLAN,
    "TodoWrite": ToolKind.TODO,
    "TodoRead": ToolKind.TODO,
}


def claude_tool_kind(name: str) -> ToolKind:
    return CLAUDE_TOOL_KINDS.get(name, ToolKind.OTHER)
