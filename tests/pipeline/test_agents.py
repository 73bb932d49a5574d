"""One machine, four coding agents: `ingest` with no paths finds every installed agent's sessions
and makes one graph of one project, where a file's decisions answer across agents and a commit
leads back to the session that made it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import cli
from summary.transcript_builder import TranscriptBuilder
from transcripts.test_opencode import STORAGE, migrate

from graphiti_session_tracking.pipeline.sources import discover_sources

DATES = "src/todo/dates.py"
WHEN = "2026-01-02T10:00:{:02d}.000Z"


def _codex(home: Path, repo: Path) -> Path:
    """A Codex CLI rollout in its dated folder: a request, a choice with its reason, a patch."""
    patch = f"*** Begin Patch\n*** Update File: {DATES}\n@@\n-import pytz\n+import zoneinfo\n*** End Patch\n"
    records: list[tuple[str, dict[str, Any]]] = [
        ("session_meta", {"id": "0199aaaa-0000-7000-8000-00000000c0de", "cwd": str(repo), "cli_version": "0.130.0"}),
        ("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Parse due dates with zoneinfo"}]}),
        ("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "I used zoneinfo instead of pytz because it ships with Python."}]}),
        ("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c1"}),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": "Exit code: 0\nOutput:\nDone!\n"}),
        ("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}),
    ]  # fmt: skip
    path = home / ".codex" / "sessions" / "2026" / "01" / "02" / "rollout-2026-01-02T10-00-00-c0de.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        json.dumps({"timestamp": WHEN.format(i), "type": t, "payload": p}) for i, (t, p) in enumerate(records)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _gemini(home: Path, repo: Path) -> Path:
    """A Gemini CLI chat (the older one-document form) that edits the same file."""
    call = {
        "id": "replace-1",
        "name": "replace",
        "args": {"file_path": str(repo / DATES), "old_string": "naive", "new_string": "aware"},
        "status": "success",
        "timestamp": WHEN.format(32),
        "result": [
            {"functionResponse": {"id": "replace-1", "name": "replace", "response": {"output": "ok"}}}
        ],
    }
    chat = {
        "sessionId": "6e6e6e6e-0000-4000-8000-000000000006",
        "projectHash": "0" * 64,
        "startTime": WHEN.format(30),
        "lastUpdated": WHEN.format(35),
        "directories": [str(repo)],
        "messages": [
            {"id": "m1", "timestamp": WHEN.format(30), "type": "user", "content": "Make due dates aware"},
            {
                "id": "m2",
                "timestamp": WHEN.format(31),
                "type": "gemini",
                "content": "I switched from naive datetimes to aware ones because due dates cross timezones.",
                "toolCalls": [call],
            },
            {"id": "m3", "timestamp": WHEN.format(35), "type": "gemini", "content": "Done."},
        ],
    }
    path = home / ".gemini" / "tmp" / "shop" / "chats" / "session-2026-01-02T10-00-6e6e6e6e.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(chat, indent=2))
    (path.parent.parent / "logs.json").write_text("[]")  # the prompt log: not a session
    return path


def _opencode(home: Path, repo: Path) -> Path:
    """OpenCode's database (and the JSON tree its migration left behind), its sessions moved to `repo`."""
    data = home / ".local" / "share" / "opencode"
    shutil.copytree(STORAGE, data / "storage")
    for file in (data / "storage").rglob("*.json"):  # the fixture's folder, as written in its records
        file.write_text(file.read_text().replace("/home/dev/todo-api", str(repo)))
    return migrate(data / "storage", data / "opencode.db")


def _claude(home: Path, repo: Path) -> Path:
    b = TranscriptBuilder(cwd=str(repo), session_id="c1a0de00-0000-4000-8000-000000000001")
    b.user("Store due dates in UTC")
    b.edit(DATES, "aware", "utc", text="I used UTC instead of local time because the API is global.")
    b.say("Done.")
    folder = home / ".claude" / "projects" / "-shop"
    folder.mkdir(parents=True)
    b.read(folder, "c1a0de00-0000-4000-8000-000000000001.jsonl")
    return folder / "c1a0de00-0000-4000-8000-000000000001.jsonl"


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, Path]:
    home, repo = tmp_path / "home", tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for make in (_claude, _codex, _gemini, _opencode):
        make(home, repo)
    return home, repo


def test_discovery_finds_every_agents_sessions(
    machine: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, _ = machine
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    found = [str(p.relative_to(home)) for p in discover_sources([])]
    database = ".local/share/opencode/opencode.db"
    assert sorted(found) == sorted(
        [
            ".claude/projects/-shop/c1a0de00-0000-4000-8000-000000000001.jsonl",
            ".codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-c0de.jsonl",
            ".gemini/tmp/shop/chats/session-2026-01-02T10-00-6e6e6e6e.json",
            # the database's top-level session; its sub-agent's is read with it, the old tree not at all
            f"{database}#ses_55f75300fffeLCIU07TeAvIZ9v",
        ]
    )


def test_a_gemini_chat_copied_out_of_its_folder_is_found_by_its_name(
    machine: tuple[Path, Path], tmp_path: Path
) -> None:
    """An exported chat (`shop__session-….json` beside other JSON files) is a session; a JSON file
    that only looks like one by name, or another project file, is not."""
    home, _ = machine
    chat = next((home / ".gemini").rglob("session-*.json"))
    export = tmp_path / "export"
    export.mkdir()
    shutil.copy(chat, export / f"shop__{chat.name}")
    (export / "package.json").write_text('{"name": "shop"}')
    (export / "session-2026-01-03T09-00-0000.json").write_text('{"session_id": "x", "objective": "y"}')
    assert [p.name for p in discover_sources([export])] == [f"shop__{chat.name}"]


def test_one_ingest_makes_one_graph_across_agents(machine: tuple[Path, Path], tmp_path: Path) -> None:
    home, _ = machine
    env = {
        k: v for k, v in os.environ.items() if k not in ("CODEX_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR")
    }
    env |= {"HOME": str(home), "GRAPHITI_TELEMETRY_ENABLED": "false"}
    db = ["--db", str(tmp_path / "g.falkordb")]
    done = cli("ingest", "--json", *db, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == [] and report["ingested"] == 4, report

    def rows(*args: str) -> list[dict[str, Any]]:
        answer = cli("query", *args, "--json", *db, env=env)
        assert answer.returncode == 0, answer.stderr
        return json.loads(answer.stdout)  # type: ignore[no-any-return]

    sessions = rows("sessions")
    assert {r["agent"] for r in sessions} == {"claude-code", "codex", "gemini-cli", "opencode"}
    assert len({r["group_id"] for r in sessions}) == 1  # one repository, one project
    by_agent = {r["agent"]: r for r in sessions}
    assert by_agent["codex"]["agent_version"] == "0.130.0"
    assert [r["session_id"] for r in rows("sessions", "--agent", "gemini-cli")] == [
        "6e6e6e6e-0000-4000-8000-000000000006"
    ]

    decisions = rows("decisions", "--file", DATES)
    agents = {
        by_id["agent"] for d in decisions for by_id in sessions if by_id["session_id"] == d["session_id"]
    }
    assert agents >= {"claude-code", "codex", "gemini-cli"}, decisions
    assert any("zoneinfo instead of pytz" in d["decision"] for d in decisions)

    [commit] = rows("commits")
    assert commit["agent"] == "opencode" and commit["sha"].startswith("7c3e9a1")
    made = rows("session", "--commit", commit["sha"][:7])
    assert {r["session_id"] for r in made} == {by_agent["opencode"]["session_id"]}
    assert DATES in {r["name"] for r in made if r["relation"] == "MODIFIED_FILE"}

    again = json.loads(cli("ingest", "--json", *db, env=env).stdout)
    assert again["ingested"] == 0 and again["skipped"] == 4, again  # every kind of source is remembered


def test_watch_plans_every_agents_sessions(
    machine: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch` sees each kind of source by its state (an OpenCode session by its rows' newest time)."""
    from graphiti_session_tracking.pipeline.ledger import Ledger
    from graphiti_session_tracking.pipeline.watch import Thresholds, plan_pass

    home, _ = machine
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        plan = plan_pass(discover_sources([]), ledger, Thresholds(idle_minutes=30), now=2_000_000_000)
    assert plan.failed == [] and len(plan.due) == 4
    assert all(c.reason == "idle" for c in plan.due)
