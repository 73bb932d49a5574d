"""What a tool call does, whatever the agent calls the tool: readers set it, everything after
them (extractors, the activity vector, the recap) reads it and never an agent's tool names."""

from __future__ import annotations

from enum import StrEnum


class ToolKind(StrEnum):
    COMMAND = "command"  # runs a shell command (input `command`)
    BACKGROUND = "background"  # reads or stops a command running in the background
    EDIT = "edit"  # changes part of a file (`file_path` or `notebook_path`)
    WRITE = "write"  # writes a whole file (`file_path`, `content`)
    READ = "read"  # reads a file (`file_path`)
    SEARCH = "search"  # looks for files or text (grep, glob, ls)
    WEB = "web"  # fetches or searches the web
    SUBAGENT = "subagent"  # hands a task to a sub-agent, whose report is the result
    QUESTION = "question"  # asks the user; the answer is the result
    PLAN = "plan"  # proposes a plan for the user to approve
    TODO = "todo"  # keeps the agent's to-do list
    OTHER = "other"  # anything else (MCP tools, tools of a later version)


# The kinds whose calls change a file.
FILE_CHANGING = frozenset({ToolKind.EDIT, ToolKind.WRITE})
