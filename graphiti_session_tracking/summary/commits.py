"""The commits a session made: read from its own `git commit`, `git push` and `gh pr create`
output, and completed from the repository with `git show` / `git log` when it is on this machine.

Only what git printed counts as a commit (`[branch sha] message`), so a session that merely talks
about committing has none. Without the repository, a commit's files are the ones git named as
created or deleted plus the ones the command added by name, or else the files the session wrote since its
previous commit when git's own count of changed files allows it; with the repository, `git show`
says exactly. Commits found only in `git log` belong to the session when they were made during it
and touch a file it wrote (the user committing its work from another terminal).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from datetime import datetime, timedelta

from graphiti_session_tracking.transcripts import Session
from graphiti_session_tracking.transcripts.kinds import ToolKind

from .files import relative_path, written_file
from .model import CommitRecord

__all__ = ["extract_commits"]

# `[main 1a2b3c4] message`, `[main (root-commit) 1a2b3c4] …`, `[detached HEAD 1a2b3c4] …`.
_COMMITTED = re.compile(
    r"^\[(?P<branch>[^\s\]]+(?: HEAD)?)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\] (?P<message>.+)$",
    re.MULTILINE,
)
_CHANGED = re.compile(r"^ (\d+) files? changed", re.MULTILINE)
_CREATED = re.compile(r"^ (?:create|delete) mode \d+ (.+)$", re.MULTILINE)
# `   18db2cf..e6a3b21  main -> main`, ` + da94c52...dcfefbe b -> b (forced update)`, ` * [new branch]  b -> b`.
_PUSHED = re.compile(
    r"^ [ +*] (?:\S+\.\.\.?(?P<sha>[0-9a-f]{7,40})|\[new branch\])\s+\S+ -> (?P<branch>\S+)", re.M
)
_PULL_REQUEST = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/pull/(\d+)\b")
_GIT = re.compile(r"(?:^|[\s;&|(])(?:git|gh)\s")
_GIT_ADD = re.compile(r"\bgit\s+add\s+([^&|;\n]+)")
_ADD_ALL = frozenset({".", "-A", "--all", "-u", "--update", ":/"})
_GIT_TIMEOUT_S = 10
# A commit in `git log` is the session's when made between its start and shortly after its end.
_AFTER_END = timedelta(minutes=5)


def extract_commits(session: Session, project_path: str | None, written: list[str]) -> list[CommitRecord]:
    """The session's commits in the order made; `written` are the files it modified (relative)."""
    commits = _from_transcript(session, project_path)
    if project_path and os.path.isdir(os.path.join(project_path, ".git")):
        commits = _from_repository(commits, project_path, session, set(written))
    return commits


def _from_transcript(session: Session, project_path: str | None) -> list[CommitRecord]:
    commits: list[CommitRecord] = []
    since_last: list[str] = []  # files the session wrote since its previous commit
    for call in session.tool_calls:
        path = written_file(call)
        if path is not None:
            since_last.append(relative_path(path, project_path))
            continue
        if call.kind is not ToolKind.COMMAND or call.result is None:
            continue
        command = str(call.input.get("command") or "")
        if not _GIT.search(command):
            continue
        output = call.result.text
        made = list(_COMMITTED.finditer(output))
        for found in made:
            if "--amend" in command and commits:
                commits.pop()  # the amended commit replaces the one before it
            commits.append(
                CommitRecord(
                    sha=found["sha"],
                    message=found["message"].strip(),
                    branch=None if found["branch"].endswith("HEAD") else found["branch"],
                    committed_at=call.result.timestamp or call.timestamp,
                    files=_files_of(output, command, since_last, project_path, session.cwd) or None,
                )
            )
        if made:
            since_last = []
        for push in _PUSHED.finditer(output):
            for commit in commits:
                if commit.branch == push["branch"] or (
                    push["sha"] and push["sha"].startswith(commit.sha[:7])
                ):
                    commit.pushed = True
        if "pr create" in command and (number := _PULL_REQUEST.search(output)):
            branch = next((c.branch for c in reversed(commits) if c.branch), None)
            for commit in commits:
                if commit.pull_request is None and (branch is None or commit.branch == branch):
                    commit.pull_request = int(number[1])
    return commits


def _files_of(
    output: str, command: str, since_last: list[str], project_path: str | None, cwd: str | None
) -> list[str]:
    """A commit's files as far as the transcript shows them (see the module docstring)."""
    named = [path.strip() for path in _CREATED.findall(output)]
    added: list[str] = []
    everything = False
    for found in _GIT_ADD.finditer(command):
        try:
            words = shlex.split(found[1])
        except ValueError:
            continue
        for word in words:
            if word in _ADD_ALL:
                everything = True
            elif not word.startswith("-"):
                full = word if os.path.isabs(word) or not cwd else os.path.normpath(os.path.join(cwd, word))
                added.append(relative_path(full, project_path))
    files = list(dict.fromkeys([*named, *added]))
    changed = _CHANGED.search(output)
    count = int(changed[1]) if changed else None
    if everything or not added:
        widened = list(dict.fromkeys([*files, *since_last]))
        if count is not None and len(widened) <= count:
            files = widened
    return files


def _git(root: str, *args: str) -> str | None:
    """A git command's output in `root`, or None when git is missing or fails (nothing is lost:
    the transcript's own facts stay)."""
    try:
        done = subprocess.run(
            ["git", "-C", root, *args],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            env={**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"},
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


_FORMAT = "--format=%x1e%H%x1f%aI%x1f%S%x1f%s"  # %S: the ref a commit was reached by (with --source)


def _log_entries(text: str) -> list[tuple[str, datetime, str, str, list[str]]]:
    """(sha, time, ref, subject, files) of each commit in `git log`/`git show` output."""
    entries = []
    for record in text.split("\x1e")[1:]:
        head, _, rest = record.partition("\n")
        fields = head.split("\x1f")
        if len(fields) != 4:
            continue
        try:
            when = datetime.fromisoformat(fields[1])
        except ValueError:
            continue
        files = [line for line in rest.splitlines() if line.strip()]
        entries.append((fields[0], when, fields[2], fields[3], files))
    return entries


def _from_repository(
    commits: list[CommitRecord], root: str, session: Session, written: set[str]
) -> list[CommitRecord]:
    """The transcript's commits with full sha, time and files from `git show`, and the commits of
    the session's time span that touch what it wrote."""
    known: set[str] = set()
    for commit in commits:
        entries = _log_entries(_git(root, "show", _FORMAT, "--name-only", commit.sha, "--") or "")
        if not entries:
            continue  # rewritten or not fetched here: keep what the transcript said
        sha, when, _refs, _subject, files = entries[0]
        commit.sha, commit.committed_at, commit.files = sha, when, files or commit.files
        known.add(sha)
    if session.started_at is None or session.ended_at is None or not written:
        return commits
    since = session.started_at.isoformat()
    until = (session.ended_at + _AFTER_END).isoformat()
    logged = _git(
        root, "log", "--all", "--source", f"--since={since}", f"--until={until}", _FORMAT, "--name-only"
    )
    extra = []
    for sha, when, ref, subject, files in _log_entries(logged or ""):
        if sha in known or not written.intersection(files):
            continue
        if not session.started_at <= when <= session.ended_at + _AFTER_END:
            continue  # --since/--until are the committer's times; the author's is the one shown
        branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
        extra.append(
            CommitRecord(sha=sha, message=subject, branch=branch, committed_at=when, files=sorted(files))
        )
    return sorted([*commits, *extra], key=lambda c: c.committed_at or session.started_at or when)
