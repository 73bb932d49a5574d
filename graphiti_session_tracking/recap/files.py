"""Where a project's latest recap is kept, and which group a project folder is: light enough for
the SessionStart hook, which must answer within a second."""

from __future__ import annotations

from pathlib import Path

from graphiti_session_tracking.config import GRAPHITI_HOME
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.transcripts.model import git_root

RECAPS = GRAPHITI_HOME / "recaps"


def project_group(fixed: GroupId | None, project: Path) -> GroupId:
    """The group a project's sessions are in: the configured one, else its repository's."""
    if fixed is not None:
        return fixed
    folder = str(project.expanduser().resolve())
    return GroupId.for_project(git_root(folder) or folder)


def recap_file(group_id: str) -> Path:
    """The kept recap; `.v2`: recaps kept before their values were quoted are never read."""
    return RECAPS / f"{group_id}.v2.md"
