"""Which files a session wrote, with paths relative to its project (shared by the extractors)."""

from __future__ import annotations

import ntpath
import posixpath
import re

from graphiti_session_tracking.transcripts import ToolCall
from graphiti_session_tracking.transcripts.kinds import FILE_CHANGING
from graphiti_session_tracking.transcripts.spill import PATH_LIMIT

__all__ = ["relative_path", "written_file"]

_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def relative_path(path: str, project_path: str | None) -> str:
    """A path relative to the project root when it lies inside it; otherwise as given. Windows
    paths (`C:\\Users\\me\\app\\src\\x.py`) are compared without regard to case or slash
    direction, and come out with forward slashes (`src/x.py`), as on every other system."""
    if not project_path:
        return path
    if _WINDOWS.match(path) and _WINDOWS.match(project_path):
        root = ntpath.normpath(project_path).rstrip("\\")
        normalized = ntpath.normpath(path)
        if normalized.lower() == root.lower():
            return "."
        if normalized.lower().startswith(root.lower() + "\\"):
            return normalized[len(root) + 1 :].replace("\\", "/")
        return path
    if posixpath.isabs(path):
        root = project_path.rstrip("/") or "/"
        normalized = posixpath.normpath(path)
        if normalized == root:
            return "."
        if normalized.startswith(root + "/"):
            return normalized[len(root) + 1 :]
    return path


def written_file(call: ToolCall) -> str | None:
    """The file a successful Write/Edit/MultiEdit/NotebookEdit call changed."""
    if call.kind not in FILE_CHANGING or not call.succeeded:
        return None
    path = call.input.get("file_path") or call.input.get("notebook_path")
    if isinstance(path, str) and len(path) > PATH_LIMIT and call.input_cut:  # cut: read it whole
        path = call.full_input.get("file_path") or call.full_input.get("notebook_path")
    return path if isinstance(path, str) and path else None
