"""One repository is one project, whatever folder Claude Code was started in; Windows paths too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "summary"))
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.summary import extract_summary
from graphiti_session_tracking.summary.files import relative_path


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "api").mkdir(parents=True)
    return root


def test_started_in_a_subfolder_of_a_repository(tmp_path: Path) -> None:
    root = repo(tmp_path)
    builder = TranscriptBuilder(cwd=str(root / "src"))
    builder.user("Fix the handler")
    builder.edit(str(root / "src" / "api" / "handler.py"), "a", "b")
    summary = extract_summary(builder.read(tmp_path))
    assert summary.project_path == str(root)
    assert summary.files_modified == ["src/api/handler.py"]


def test_started_above_the_one_repository_it_changed(tmp_path: Path) -> None:
    root = repo(tmp_path)
    builder = TranscriptBuilder(cwd=str(tmp_path / "work"))
    builder.user("Fix the handler")
    builder.write(str(root / "src" / "api" / "handler.py"), "x = 1\n")
    summary = extract_summary(builder.read(tmp_path))
    assert summary.project_path == str(root)
    assert summary.files_modified == ["src/api/handler.py"]


def test_a_folder_this_machine_does_not_have_stays_as_recorded(tmp_path: Path) -> None:
    builder = TranscriptBuilder(cwd="/home/someone-else/project")
    builder.user("Fix it")
    builder.write("/home/someone-else/project/main.go", "package main\n")
    summary = extract_summary(builder.read(tmp_path))
    assert summary.project_path == "/home/someone-else/project"
    assert summary.files_modified == ["main.go"]


def test_windows_paths_are_relative_with_forward_slashes(tmp_path: Path) -> None:
    cwd = "C:\\Users\\Dev\\shop"
    assert relative_path("c:\\users\\dev\\shop\\src\\Cart.ts", cwd) == "src/Cart.ts"
    assert relative_path("C:/Users/Dev/shop/README.md", cwd) == "README.md"
    assert relative_path("D:\\other\\x.ts", cwd) == "D:\\other\\x.ts"
    builder = TranscriptBuilder(cwd=cwd)
    builder.user("Fix the cart")
    path = "C:\\Users\\Dev\\shop\\src\\Cart.ts"
    builder.call(
        "Edit",
        {"file_path": path, "old_string": "a", "new_string": "b"},
        f"The file {path} has been updated.",
    )
    assert extract_summary(builder.read(tmp_path)).files_modified == ["src/Cart.ts"]


def test_windows_group_ids_are_the_folder_name_and_ignore_case_and_slashes() -> None:
    group = GroupId.for_project("C:\\Users\\Dev\\shop")
    assert group.startswith("shop_")
    assert GroupId.for_project("c:/users/dev/shop/") == group
    assert GroupId.for_project("/home/dev/shop") != group


@pytest.mark.parametrize(
    ("worktree", "repository"),
    [
        (
            "C:\\Users\\Mi\\.claude-worktrees\\M-Claude\\unruffled-mcclintock",
            "C:\\Users\\Mi\\.claude-worktrees\\M-Claude",
        ),
        ("/Users/jd/.codex/worktrees/e218/mise", "/Users/jd/.codex/worktrees/3f0a/mise"),
        ("/Users/al/cli/.worktrees/soph/fix-date", "/Users/al/cli"),
        ("/Users/al/cli/.claude/worktrees/brave-turing", "/Users/al/cli"),
    ],
)
def test_a_worktree_off_this_machine_is_its_repositorys_project(worktree: str, repository: str) -> None:
    """Agents make worktrees in known folders; a session there belongs to the repository's group,
    named after the repository rather than a throwaway branch."""
    assert GroupId.for_project(worktree) == GroupId.for_project(repository)
    assert GroupId.for_project("/Users/jd/.codex/worktrees/e218/hk") != GroupId.for_project(repository)


def test_a_linked_worktree_on_disk_is_its_main_checkouts_project(tmp_path: Path) -> None:
    main, linked = tmp_path / "shop", tmp_path / "elsewhere" / "shop-fix"
    main.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "start"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", "-b", "fix", str(linked)], check=True)
    assert GroupId.for_project(str(linked)) == GroupId.for_project(str(main))
    assert GroupId.for_project(str(linked)).startswith("shop_")
