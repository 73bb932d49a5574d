"""Everything we write is the user's only: files 0600, folders 0700, whatever the umask. What we
keep names the user's projects, sessions, errors and decisions."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from conftest import TRANSCRIPTS, cli

from graphiti_session_tracking.hooks.settings import install
from graphiti_session_tracking.tools import ClassificationCache, ToolDomain, ToolIntent, Verdict
from graphiti_session_tracking.tools.cache import tool_keys

HELLO = TRANSCRIPTS / "hello-world-script.jsonl"  # cwd /tmp/tmp74wiyiny
COVERAGE = TRANSCRIPTS / "coverage-test-fix.jsonl"  # cwd /tmp/tmpw6sk2trg


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _not_private(root: Path) -> list[str]:
    """Every file under `root` (and `root`) that is not 0600, every folder that is not 0700."""
    wrong = []
    for folder, dirs, files in os.walk(root):
        for name in [".", *dirs]:
            path = Path(folder, name)
            if _mode(path) != 0o700:
                wrong.append(f"{path}: {oct(_mode(path))}")
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink() and _mode(path) != 0o600:
                wrong.append(f"{path}: {oct(_mode(path))}")
    return wrong


def test_every_file_and_folder_we_create_is_private(tmp_path: Path, umask_022: None) -> None:
    home = tmp_path / "home"
    graphiti_home = home / ".graphiti"  # made by the commands below, as on a first run
    project = tmp_path / "project"
    transcripts = home / ".claude" / "projects" / "-project"
    project.mkdir()
    transcripts.mkdir(parents=True)
    for source, cwd in ((HELLO, "/tmp/tmp74wiyiny"), (COVERAGE, "/tmp/tmpw6sk2trg")):
        (transcripts / source.name).write_text(source.read_text().replace(cwd, str(project)))
    env = {**os.environ, "HOME": str(home), "GRAPHITI_HOME": str(graphiti_home)}
    env.pop("CLAUDE_CONFIG_DIR", None)

    def run(*args: str, timeout: float = 300) -> str:
        done = cli(*args, env=env, cwd=project, timeout=timeout)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run(
        "config", "init", str(graphiti_home / "graphiti.config.json")
    )  # the graph: ~/.graphiti/sessions.falkordb
    run("ingest", str(transcripts.parent))
    files_config = tmp_path / "files.json"  # summaries kept as files, under ~/.graphiti/summaries
    files_config.write_text(json.dumps({"session_tracking": {"store_in_graph": False}}))
    run("ingest", "--config", str(files_config), str(transcripts.parent))
    # The hook: its log, and the detached catch-up's recap under ~/.graphiti/recaps.
    event = {"session_id": "", "transcript_path": str(transcripts / HELLO.name), "cwd": str(project)}
    done = cli("hook", "session-end", env=env, cwd=project, stdin=json.dumps(event), timeout=30)
    assert done.returncode == 0, done.stderr
    log = graphiti_home / "hooks.log"
    deadline = time.monotonic() + 180
    while not (log.exists() and '"recap"' in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert '"recap": "' in log.read_text() and ".md" in log.read_text(), log.read_text()
    # The tool classification cache (written when an LLM answered) and its lock.
    cache = ClassificationCache(graphiti_home / "tool_classification_cache.json")
    verdict = Verdict(intent=ToolIntent.SEARCH, domain=ToolDomain.CODE, confidence=0.9, reasoning="r")
    cache.put(*tool_keys("mcp__x__find", {"q": 1}), verdict)
    assert cache.save()

    created = sorted(p.relative_to(graphiti_home).as_posix() for p in graphiti_home.rglob("*"))
    for expected in (
        "graphiti.config.json",
        "graphiti.config.schema.json",
        "sessions.falkordb",
        "sessions.falkordb.aof.d",
        "sessions.falkordb.ledger.sqlite",
        "sessions.falkordb.lock",
        "summaries/ledger.sqlite",
        "hooks.log",
        "tool_classification_cache.json",
    ):
        assert expected in created, created
    assert any(p.startswith("recaps/") and p.endswith(".md") for p in created), created
    assert any(p.startswith("summaries/") and p.endswith(".json") for p in created), created
    assert _not_private(graphiti_home) == []

    # Files the user names: new ones are private too; one that exists keeps its mode.
    run("recap", "--project", str(project), "--out", str(project / "handoff.md"))
    run("hook", "install", "--project")
    run("config", "init", str(project / "sub" / "graphiti.config.json"))
    assert _mode(project / "handoff.md") == 0o600
    assert _mode(project / ".claude") == 0o700 and _mode(project / ".claude" / "settings.json") == 0o600
    assert _mode(project / "sub") == 0o700 and _mode(project / "sub" / "graphiti.config.json") == 0o600
    (project / "handoff.md").chmod(0o644)
    run("recap", "--project", str(project), "--out", str(project / "handoff.md"))
    assert _mode(project / "handoff.md") == 0o644


def test_a_settings_file_keeps_its_mode_and_its_backup_is_private(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"env": {"API_TOKEN": "x"}}')
    path.chmod(0o644)
    install(path, ["SessionEnd"])
    assert _mode(path) == 0o644
    assert _mode(path.with_name("settings.json.graphiti-sessions.bak")) == 0o600
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_log_an_earlier_version_left_readable_is_made_private(tmp_path: Path, umask_022: None) -> None:
    graphiti_home = tmp_path / "g"
    graphiti_home.mkdir(mode=0o700)
    log = graphiti_home / "hooks.log"
    log.write_text("")
    log.chmod(0o644)
    env = {**os.environ, "HOME": str(tmp_path), "GRAPHITI_HOME": str(graphiti_home)}
    done = cli("hook", "session-end", env=env, stdin="{}", timeout=30)
    assert done.returncode == 0 and "no transcript_path" in log.read_text()
    assert _mode(log) == 0o600
