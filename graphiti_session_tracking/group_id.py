"""The group id: which project a session belongs to, and so which graph (FalkorDB) or partition
(Neo4j) holds it. One type, validated once where a value enters (option, config, old record),
derived one way from a project folder, and checked again before any Cypher uses it.

Only [A-Za-z0-9_] is allowed, 1 to 128 characters: FalkorDB's full-text search breaks on others,
and a group id becomes a graph name.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePosixPath, PureWindowsPath

PATTERN = r"^[A-Za-z0-9_]{1,128}$"
_VALID = re.compile(PATTERN)
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


class InvalidGroupIdError(ValueError):
    """A group id outside [A-Za-z0-9_]{1,128}."""


class GroupId(str):
    """A valid group id (a `str`, so it goes anywhere a string does)."""

    __slots__ = ()

    def __new__(cls, value: str) -> GroupId:
        if isinstance(value, GroupId):
            return value
        if not isinstance(value, str) or not _VALID.fullmatch(value):
            raise InvalidGroupIdError(
                f"invalid group id {value!r}: use 1 to 128 characters of A-Z, a-z, 0-9 and _"
            )
        return super().__new__(cls, value)

    @classmethod
    def for_project(cls, project_path: str) -> GroupId:
        """A readable, stable group id for a project folder: its name plus a short hash of the
        path (any OS: `C:\\Users\\me\\shop` and `c:/users/me/shop/` are the same project), so two
        projects with the same folder name stay apart. A worktree is its repository's project."""
        windows = bool(_WINDOWS.match(project_path))
        posix = PureWindowsPath(project_path).as_posix() if windows else project_path
        folder = main_checkout(posix.rstrip("/") or "/", on_disk=not windows)
        clean = folder.lower() if windows else folder  # Windows: any case, any slash
        name = re.sub(r"[^A-Za-z0-9_]+", "_", PurePosixPath(folder).name).strip("_") or "root"
        return cls(f"{name[:48]}_{_digest(clean)}")

    @classmethod
    def from_any(cls, raw: str, *, empty: str) -> GroupId:
        """A group id for any string (an old module's group), deterministically: a valid one is
        kept; otherwise every other character becomes `_` and 8 hex digits of the string's SHA-1
        are appended, so two that differ only there never merge (`my-host`, `my_host`)."""
        if not raw:
            return cls(empty)
        if _VALID.fullmatch(raw):
            return cls(raw)
        return cls(f"{re.sub(r'[^A-Za-z0-9_]', '_', raw)[:119]}_{_digest(raw)}")


# Where agents make a worktree of a repository, and the folder that stands for the repository:
# `<repo>/.worktrees/<name>` and `<repo>/.claude/worktrees/<name>` (inside it),
# `~/.claude-worktrees/<repo>/<name>` (Claude's desktop app), `~/.codex/worktrees/<id>/<repo>` (Codex).
_WORKTREE_FOLDERS = (
    (re.compile(r"^(.+?)/\.(?:claude/)?worktrees/[^/]+(?:/.*)?$"), r"\1"),
    (re.compile(r"^(.+?/\.claude-worktrees/[^/]+)/[^/]+(?:/.*)?$"), r"\1"),
    (re.compile(r"^(.+?/\.codex/worktrees)/[^/]+/([^/]+)(?:/.*)?$"), r"\1/\2"),
)
_GITDIR = re.compile(r"^gitdir:\s*(.+?)\s*$", re.MULTILINE)


def main_checkout(folder: str, *, on_disk: bool = True) -> str:
    """The folder that stands for `folder`'s repository when `folder` is a worktree of it, so
    that a session in a worktree joins its project's group rather than one named after a
    throwaway branch: on this machine, the main checkout a linked worktree's `.git` file points
    to; elsewhere, by the folders agents make worktrees in. Any other folder is itself."""
    if on_disk:
        try:
            with open(os.path.join(folder, ".git"), encoding="utf-8") as handle:
                pointer = _GITDIR.search(handle.read(4096))
        except OSError:
            pointer = None
        if pointer is not None:
            gitdir = os.path.normpath(os.path.join(folder, pointer.group(1)))
            parts = gitdir.replace(os.sep, "/").rsplit("/.git/worktrees/", 1)
            if len(parts) == 2:
                return parts[0]
    for pattern, repository in _WORKTREE_FOLDERS:
        if pattern.match(folder):
            return pattern.sub(repository, folder)
    return folder


def is_group_id(value: str) -> bool:
    """Whether `value` is a valid group id (a graph of another program in the database is not)."""
    return bool(_VALID.fullmatch(value))


def _digest(text: str) -> str:
    import hashlib  # OpenSSL's, 4 ms to load: a question over every group never names one

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
