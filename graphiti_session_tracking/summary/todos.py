"""Completed tasks and next steps from the agent's own todo list (Claude Code's TodoWrite tool).

Each TodoWrite call replaces the whole list, so the last call is the session's final word on what
was done and what was left. No LLM: the agent already wrote the tasks as short imperative lines.
"""

from __future__ import annotations

import json
from typing import Any

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

__all__ = ["extract_tasks", "todo_items"]

_DONE = "completed"
_OPEN = frozenset({"pending", "in_progress"})


def todo_items(call: ToolCall) -> list[tuple[str, str]]:
    """(content, status) of a TodoWrite call's items, skipping anything malformed.

    `todos` is normally a list of {"content", "status", "activeForm"}; a list sent as a JSON string,
    items without text, or statuses in other case are tolerated rather than trusted blindly.
    """
    todos: Any = call.full_input.get("todos")  # a list longer than the reader keeps is read whole
    if isinstance(todos, str):
        try:
            todos = json.loads(todos)
        except ValueError:
            return []
    if not isinstance(todos, list):
        return []
    items: list[tuple[str, str]] = []
    for item in todos:
        if not isinstance(item, dict):
            continue
        content, status = item.get("content"), item.get("status")
        if not isinstance(content, str) or not isinstance(status, str):
            continue
        text = " ".join(content.split())
        if text:
            items.append((text, status.strip().lower().replace("-", "_").replace(" ", "_")))
    return items


def extract_tasks(session: Session) -> tuple[list[str], list[str]]:
    """(completed_tasks, next_steps) from the last TodoWrite of the main conversation.

    Completed items are the completed tasks. Pending and in-progress items are next steps unless an
    earlier list of the session already marked the same task completed (the agent re-opened or
    re-listed work it had finished; the session did finish it). Sub-agents' lists are their own
    scratch work and are left out; a TodoWrite the tool rejected never became the list.
    """
    calls = [
        c
        for c in session.tool_calls
        if c.kind is ToolKind.TODO
        and "todos" in c.input
        and not c.is_sidechain
        and not (c.result is not None and c.result.is_error)
        and todo_items(c)
    ]
    if not calls:
        return [], []
    finished = {content for call in calls for content, status in todo_items(call) if status == _DONE}
    completed: dict[str, None] = {}
    open_items: dict[str, None] = {}
    for content, status in todo_items(calls[-1]):
        if status == _DONE:
            completed.setdefault(content, None)
        elif status in _OPEN and content not in finished:
            open_items.setdefault(content, None)
    return list(completed), [step for step in open_items if step not in completed]
