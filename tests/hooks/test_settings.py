"""Installing the hooks into Claude Code's settings.json: beside other tools' hooks and settings,
idempotent, with a backup; a malformed file is reported with its line and never overwritten."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import cli

from graphiti_session_tracking.hooks.settings import SettingsError, install, installed, uninstall

OTHERS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "other-tool flush"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}


def test_install_merges_is_idempotent_and_uninstall_removes_only_ours(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHERS))
    assert install(path, ["SessionStart", "SessionEnd"]) == ["SessionStart", "SessionEnd"]
    assert install(path, ["SessionStart", "SessionEnd"]) == []  # idempotent
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == OTHERS["permissions"]
    assert data["hooks"]["PreToolUse"] == OTHERS["hooks"]["PreToolUse"]
    commands = [h["command"] for g in data["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert (
        commands[0] == "other-tool flush" and commands[1].endswith("hook session-end") and len(commands) == 2
    )
    assert set(installed(path)) == {"SessionStart", "SessionEnd"}
    assert uninstall(path) == ["SessionEnd", "SessionStart"]
    assert json.loads(path.read_text()) == OTHERS
    assert uninstall(path) == []


def test_backup_is_the_file_before_the_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(OTHERS, indent=4))
    before = path.read_text()
    install(path, ["SessionEnd"])
    assert Path(f"{path}.graphiti-sessions.bak").read_text() == before


def test_a_missing_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".claude" / "settings.json"
    install(path, ["SessionStart", "SessionEnd", "PreCompact"])
    assert set(installed(path)) == {"SessionStart", "SessionEnd", "PreCompact"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "model": "opus",\n  "hooks": {,}\n}\n', ":3:"),
        ("[1, 2]", ":1:"),
        ('{"hooks": {"SessionEnd": {}}}', ""),
    ],
)
def test_a_malformed_file_is_reported_and_never_written(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(SettingsError, match="left as it is") as raised:
        install(path, ["SessionEnd"])
    assert f"{path}{where}" in str(raised.value)
    assert path.read_text() == text and not Path(f"{path}.graphiti-sessions.bak").exists()


def test_the_commands_user_and_project_scopes(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "GRAPHITI_HOME": str(tmp_path / "g")}

    def run(*args: str) -> str:
        done = cli("hook", *args, env=env, cwd=project)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "added SessionStart, SessionEnd" in run("install")
    assert "already installed" in run("install")
    assert "added SessionStart, SessionEnd, PreCompact" in run("install", "--project", "--pre-compact")
    status = json.loads(run("status", "--json"))
    assert set(status["user"]["hooks"]) == {"SessionStart", "SessionEnd"}
    assert set(status["project"]["hooks"]) == {"SessionStart", "SessionEnd", "PreCompact"}
    assert "removed" in run("uninstall", "--project")
    assert not (project / ".claude" / "settings.json").read_text().count("graphiti_session_tracking")
    (home / ".claude" / "settings.json").write_text("{oops")
    broken = cli("hook", "install", env=env, cwd=project)
    assert broken.returncode == 2 and ":1: not valid JSON" in broken.stderr


def test_gemini_cli_hooks_beside_its_own_switches(tmp_path: Path) -> None:
    """Gemini CLI's settings.json takes hooks in the same shape, its timeouts in milliseconds, and
    may keep its own switches in `hooks` (`enabled`, `disabled`): kept as they are."""
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    theirs = {
        "theme": "dark",
        "hooks": {"enabled": True, "disabled": ["x"], "SessionEnd": OTHERS["hooks"]["SessionEnd"]},
    }
    path.write_text(json.dumps(theirs))
    env = {**os.environ, "HOME": str(home)}
    done = cli("hook", "install", "--agent", "gemini-cli", env=env, cwd=tmp_path)
    assert done.returncode == 0 and "added SessionStart, SessionEnd" in done.stdout, done.stderr
    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and data["hooks"]["enabled"] is True and data["hooks"]["disabled"] == ["x"]
    (ours,) = [h for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    assert ours["command"].endswith("hook session-start --agent=gemini-cli") and ours["timeout"] == 10_000
    assert set(installed(path)) == {"SessionStart", "SessionEnd"}
    status = json.loads(cli("hook", "status", "--json", env=env, cwd=tmp_path).stdout)
    assert set(status["gemini-cli user"]["hooks"]) == {"SessionStart", "SessionEnd"}
    assert status["user"]["hooks"] == {}  # Claude Code's settings untouched
    assert cli("hook", "uninstall", "--agent", "gemini-cli", env=env, cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text()) == theirs


# The file is the user's: install then uninstall gives back its bytes, whatever its formatting.

THEIRS = {
    "model": "opus",
    "note": "Zoë's café — 日本語",
    "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": []},
    "env": {},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]},
}
NO_HOOKS = {key: value for key, value in THEIRS.items() if key != "hooks"}
ALL_EVENTS = ["SessionStart", "SessionEnd", "PreCompact"]

FORMATS = {
    "2 spaces": json.dumps(THEIRS, indent=2, ensure_ascii=False) + "\n",
    "4 spaces": json.dumps(THEIRS, indent=4, ensure_ascii=False) + "\n",
    "tabs": json.dumps(THEIRS, indent="\t", ensure_ascii=False) + "\n",
    "no trailing newline": json.dumps(THEIRS, indent=2, ensure_ascii=False),
    "no hooks key": json.dumps(NO_HOOKS, indent=2, ensure_ascii=False) + "\n",
    "non-ASCII, escaped by the user": json.dumps(THEIRS, indent=2) + "\n",
    "CRLF": json.dumps(THEIRS, indent=2, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    "one line": json.dumps(THEIRS, ensure_ascii=False),
    "minified": json.dumps(THEIRS, ensure_ascii=False, separators=(",", ":")),
    "by hand": (
        '{\n  "model" : "opus",\n  "note": "Zoë\'s café",\n  "permissions": {"allow": ["Read"]},\n\n'
        '  "hooks": {\n    "SessionEnd": [ { "hooks": [ {"type": "command", "command": "x"} ] } ]\n  }\n}\n'
    ),
    "empty object": "{}",
    "an empty event list of theirs": '{\n  "hooks": {\n    "Stop": []\n  }\n}\n',
}


@pytest.mark.parametrize("text", FORMATS.values(), ids=FORMATS.keys())
def test_install_then_uninstall_gives_the_file_back_byte_for_byte(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    original = text.encode("utf-8")
    path.write_bytes(original)
    assert install(path, ALL_EVENTS) == ALL_EVENTS
    written = path.read_bytes()
    assert set(installed(path)) == set(ALL_EVENTS)
    data = json.loads(written)
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in json.loads(text).items() if k != "hooks"
    }
    assert written.endswith(b"}" + original[original.rfind(b"}") + 1 :])  # its trailing newline, or none
    assert ("Zoë".encode() in written) == ("Zoë".encode() in original)  # non-ASCII as the user wrote it
    assert sorted(uninstall(path)) == sorted(ALL_EVENTS)  # in the file's order
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            json.dumps(NO_HOOKS, indent=2, ensure_ascii=False) + "\n",
            '\n  "hooks": {\n    "SessionStart": [\n      {\n',
        ),
        (
            json.dumps(NO_HOOKS, indent=4, ensure_ascii=False) + "\n",
            '\n    "hooks": {\n        "SessionStart": [\n',
        ),
        (
            json.dumps(NO_HOOKS, indent="\t", ensure_ascii=False),
            '\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{\n',
        ),
    ],
    ids=["2 spaces", "4 spaces", "tabs"],
)
def test_what_we_add_is_indented_as_the_file_is(tmp_path: Path, text: str, line: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, "utf-8")
    install(path, ["SessionStart"])
    written = path.read_text("utf-8")
    assert line in written and "Zoë's café — 日本語" in written
    assert written.startswith(text.rstrip("\n").removesuffix("}").rstrip())  # the user's part untouched


def test_a_file_without_hooks_gets_them_and_loses_them_again(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = b'{\n  "model": "opus"\n}\n'
    path.write_bytes(original)
    install(path, ["SessionEnd"])
    assert set(json.loads(path.read_bytes())["hooks"]) == {"SessionEnd"}
    assert uninstall(path) == ["SessionEnd"]
    assert path.read_bytes() == original  # no `"hooks": {}` left behind, no event list either


def test_a_missing_file_is_written_with_two_spaces_and_a_newline(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install(path, ["SessionEnd"])
    text = path.read_text("utf-8")
    assert text.startswith('{\n  "hooks": {\n    "SessionEnd": [\n') and text.endswith("\n}\n")
    uninstall(path)
    assert path.read_bytes() == b"{}\n"


def test_uninstall_after_the_user_edited_keeps_their_edits_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = json.dumps(THEIRS, indent=4, ensure_ascii=False) + "\n"
    path.write_text(original, "utf-8")
    install(path, ["SessionStart", "SessionEnd"])
    # The user adds a setting of their own (their way: inline) and a hook of their own in our event.
    edited = path.read_text("utf-8").replace(
        '"model": "opus",', '"model": "opus",\n    "theme": ["dark", "ü"],'
    )
    edited = edited.replace(
        '"SessionEnd": [\n',
        '"SessionEnd": [\n            {"hooks": [{"type": "command", "command": "mine"}]},\n',
    )
    path.write_text(edited, "utf-8")
    assert uninstall(path) == ["SessionStart", "SessionEnd"]
    mine = '            {"hooks": [{"type": "command", "command": "mine"}]}'
    expected = original.replace('"model": "opus",', '"model": "opus",\n    "theme": ["dark", "ü"],').replace(
        "\n        ]\n    }\n}", f'\n        ],\n        "SessionEnd": [\n{mine}\n        ]\n    }}\n}}'
    )
    assert path.read_text("utf-8") == expected
    assert json.loads(expected)["hooks"]["SessionEnd"] == [
        {"hooks": [{"type": "command", "command": "mine"}]}
    ]


def test_an_older_command_of_ours_is_replaced_theirs_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    old = {
        "type": "command",
        "command": "/old/python -m graphiti_session_tracking hook session-end",
        "timeout": 5,
    }
    other = {"type": "command", "command": "other-tool flush"}
    original = json.dumps({"hooks": {"SessionEnd": [{"hooks": [other, old]}]}}, indent=2) + "\n"
    path.write_text(original)
    assert install(path, ["SessionEnd"]) == ["SessionEnd"]
    groups = json.loads(path.read_text())["hooks"]["SessionEnd"]
    assert groups[0] == {"hooks": [other]} and installed(path)["SessionEnd"].endswith("hook session-end")
    assert "/old/python" not in path.read_text()
    uninstall(path)
    assert path.read_text() == json.dumps({"hooks": {"SessionEnd": [{"hooks": [other]}]}}, indent=2) + "\n"


def test_a_symlinked_settings_file_stays_a_link_and_its_target_is_changed(tmp_path: Path) -> None:
    dotfiles, claude = tmp_path / "dotfiles" / "claude", tmp_path / "home" / ".claude"
    dotfiles.mkdir(parents=True)
    claude.mkdir(parents=True)
    target = dotfiles / "settings.json"
    original = (json.dumps(THEIRS, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    target.write_bytes(original)
    target.chmod(0o640)
    link = claude / "settings.json"
    link.symlink_to(os.path.relpath(target, claude))  # as dotfile managers make them: relative
    pointed = os.readlink(link)

    assert install(link, ["SessionStart", "SessionEnd"]) == ["SessionStart", "SessionEnd"]
    assert link.is_symlink() and os.readlink(link) == pointed
    assert set(installed(target)) == {"SessionStart", "SessionEnd"}
    assert (target.stat().st_mode & 0o777) == 0o640
    assert Path(f"{link}.graphiti-sessions.bak").read_bytes() == original  # the backup beside the link
    assert sorted(p.name for p in dotfiles.iterdir()) == ["settings.json"]  # no temporary file left

    assert uninstall(link) == ["SessionStart", "SessionEnd"] and installed(target) == {}
    assert link.is_symlink() and os.readlink(link) == pointed
    assert target.read_bytes() == original and (target.stat().st_mode & 0o777) == 0o640


def test_a_link_to_a_link_is_followed_to_the_file(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_bytes(b'{"model": "opus"}')
    middle, link = tmp_path / "middle.json", tmp_path / "settings.json"
    middle.symlink_to(target)
    link.symlink_to(middle)
    install(link, ["SessionEnd"])
    assert link.is_symlink() and middle.is_symlink() and set(installed(target)) == {"SessionEnd"}
    uninstall(link)
    assert target.read_bytes() == b'{"model": "opus"}'


def test_invalid_json_names_the_file_and_line_and_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    original = (
        '{\n  "model": "opus",\n  "note": "café",\n  "hooks": {\n    "SessionEnd": [,]\n  }\n}\n'.encode()
    )
    target.write_bytes(original)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    for path in (target, link):
        for change in (lambda p: install(p, ["SessionEnd"]), uninstall):
            with pytest.raises(SettingsError) as raised:
                change(path)
            assert str(raised.value).startswith(f"{path}:5: not valid JSON")
    assert target.read_bytes() == original and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "settings.json"]  # no backup, no temp


def test_a_target_folder_that_takes_no_new_file_gets_the_file_rewritten_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link to a settings.json in a folder we may not create files in (a read-only dotfiles
    folder) but writable itself: changed in place rather than not at all."""
    shared, claude = tmp_path / "shared", tmp_path / ".claude"
    shared.mkdir()
    claude.mkdir()
    target, link = shared / "settings.json", claude / "settings.json"
    original = b'{\n\t"model": "opus"\n}'
    target.write_bytes(original)
    link.symlink_to(target)
    inode = target.stat().st_ino
    mkstemp = tempfile.mkstemp

    def refused_in_shared(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if Path(kwargs["dir"]) == shared:  # root ignores a folder's mode: refuse as it would
            raise PermissionError(13, "Permission denied", str(shared))
        return mkstemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused_in_shared)
    install(link, ["SessionEnd"])
    assert target.stat().st_ino == inode and set(installed(target)) == {"SessionEnd"}
    assert Path(f"{link}.graphiti-sessions.bak").read_bytes() == original
    uninstall(link)
    assert target.read_bytes() == original and link.is_symlink()


def test_a_blank_file_is_an_empty_one(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"\n")
    assert uninstall(path) == [] and path.read_bytes() == b"\n"
    assert install(path, ["SessionEnd"]) == ["SessionEnd"] and set(installed(path)) == {"SessionEnd"}
