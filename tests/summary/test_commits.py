"""Commits read from a session's own git output, and completed from the repository when it is here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import FIXTURES
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary import extract_summary
from graphiti_session_tracking.summary.commits import extract_commits
from graphiti_session_tracking.transcripts import read_transcript

COMMIT_OUTPUT = (
    "[main 1a2b3c4] Add the cart total\n 2 files changed, 12 insertions(+)\n create mode 100644 src/cart.py"
)


def test_a_commit_from_the_transcript_alone(tmp_path: Path) -> None:
    """No repository on this machine: sha, message, branch, time, files, push and pull request
    all come from what git and gh printed."""
    b = TranscriptBuilder(cwd="/nowhere/shop")
    b.user("add a cart total and open a PR")
    b.write("src/cart.py", "def total(): ...\n")
    b.edit("README.md", "old", "new")
    b.bash("git add -A && git commit -m 'Add the cart total'", COMMIT_OUTPUT)
    b.bash("git push -u origin main", "To github.com:me/shop.git\n   0f0f0f0..1a2b3c4  main -> main")
    b.bash("cd /nowhere/shop && gh pr create --fill", "https://github.com/me/shop/pull/42\n")
    b.say("Done.")
    summary = extract_summary(b.read(tmp_path))
    assert summary.agent == "claude-code"
    [commit] = summary.commits or []
    assert (commit.sha, commit.message, commit.branch) == ("1a2b3c4", "Add the cart total", "main")
    assert commit.files == ["src/cart.py", "README.md"]  # created by name, then what the session wrote
    assert commit.pushed and commit.pull_request == 42
    assert commit.committed_at is not None and summary.started_at <= commit.committed_at <= summary.ended_at


def test_what_is_not_a_commit(tmp_path: Path) -> None:
    """A failed commit, a log listing, a commit message only talked about: none is a commit; an
    amend replaces the commit it amends; a rebase's detached HEAD has no branch."""
    b = TranscriptBuilder(cwd="/nowhere/shop")
    b.user("commit it")
    b.bash("git commit -m 'x'", "Exit code 128\nerror: gpg failed to sign the data", is_error=True)
    b.bash("git log --oneline -2", "1a2b3c4 Add the cart total\n0f0f0f0 Initial")
    b.say("I will commit with the message [main 1234567] later.")
    b.bash("git commit -m 'Fix typo'", "[main 2b2b2b2] Fix typo\n 1 file changed, 1 insertion(+)")
    b.bash("git commit --amend -m 'Fix the typo'", "[main 3c3c3c3] Fix the typo\n 1 file changed")
    b.bash("git rebase -i HEAD~2", "[detached HEAD 4d4d4d4] Squashed\n 1 file changed")
    session = b.read(tmp_path)
    commits = extract_commits(session, "/nowhere/shop", [])
    assert [(c.sha, c.message, c.branch, c.pushed) for c in commits] == [
        ("3c3c3c3", "Fix the typo", "main", False),
        ("4d4d4d4", "Squashed", None, False),
    ]
    # git said one file changed, and the session wrote none since: no files rather than a guess
    assert commits[0].files is None


def test_files_are_not_guessed_beyond_what_git_counted(tmp_path: Path) -> None:
    b = TranscriptBuilder(cwd="/nowhere/shop")
    b.user("commit the fix")
    b.write("src/a.py", "a")
    b.write("src/b.py", "b")
    b.write("notes.txt", "scratch")
    b.bash("git commit -am 'Fix a'", "[main 5e5e5e5] Fix a\n 1 file changed, 1 insertion(+)")
    b.bash("git add src/b.py && git commit -m 'Fix b'", "[main 6f6f6f6] Fix b\n 1 file changed")
    commits = extract_commits(b.read(tmp_path), "/nowhere/shop", [])
    assert [(c.sha, c.files) for c in commits] == [("5e5e5e5", None), ("6f6f6f6", ["src/b.py"])]


def _git(repo: Path, *args: str, when: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


def test_the_repository_completes_and_adds_commits(tmp_path: Path) -> None:
    """With the repository here: the full sha and exact files from `git show`, and a commit made
    during the session from another terminal that touches what the session wrote; not a commit of
    other files, nor one made after the session."""
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "base.txt").write_text("base\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "Initial", when="2026-01-01T09:00:00+00:00")

    b = TranscriptBuilder(cwd=str(repo))  # its clock runs from 2026-01-01 10:00:10 UTC, 10 s a record
    b.user("add the cart and commit it")
    b.write("src/cart.py", "def total(): ...\n")
    b.edit("base.txt", "base", "based")
    (repo / "src").mkdir()
    (repo / "src/cart.py").write_text("def total(): ...\n")
    (repo / "base.txt").write_text("based\n")
    _git(repo, "add", "src/cart.py")
    _git(repo, "commit", "-qm", "Add the cart", when="2026-01-01T10:00:45+00:00")
    full = _git(repo, "rev-parse", "HEAD").strip()
    b.bash(
        "git add src/cart.py && git commit -m 'Add the cart'",
        f"[main {full[:7]}] Add the cart\n 1 file changed",
    )
    b.say("Committed.")
    (repo / "other.txt").write_text("x\n")
    _git(repo, "add", "other.txt")
    _git(repo, "commit", "-qm", "Unrelated", when="2026-01-01T10:01:00+00:00")
    _git(repo, "add", "base.txt")
    _git(repo, "commit", "-qm", "Touch base", when="2026-01-01T10:01:05+00:00")
    by_hand = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "base.txt").write_text("later\n")
    _git(repo, "commit", "-qam", "Much later", when="2026-01-02T10:00:00+00:00")

    session = b.read(tmp_path)
    commits = extract_summary(session).commits or []
    assert [(c.sha, c.message, c.files) for c in commits] == [
        (full, "Add the cart", ["src/cart.py"]),
        (by_hand, "Touch base", ["base.txt"]),
    ]
    assert commits[1].branch == "main"


def test_the_commit_of_a_real_session() -> None:
    """A real Claude Code session (tests/fixtures/claude-code): the port to Rust committed once,
    its files as git listed them (created and deleted) and then what the session wrote."""
    session = read_transcript(FIXTURES / "claude-code" / "python-to-rust-port.jsonl")
    [commit] = extract_summary(session).commits or []
    assert (commit.sha, commit.message, commit.branch, commit.pushed) == (
        "7e2d976",
        "Port Python utility library to Rust",
        "master",
        False,
    )
    files = commit.files or []
    assert {"Cargo.toml", "src/lib.rs", "pyproject.toml", "src/dict_utils.py", "Justfile"} <= set(files)
    assert len(files) <= 23  # git said 23 files changed
