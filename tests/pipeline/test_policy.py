"""The configuration's say over a run: excluded projects, old transcripts, summary fields, and
summaries kept as files instead of the graph — each seen in a real `ingest`."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from conftest import TRANSCRIPTS, cli

from graphiti_session_tracking.pipeline.policy import Policy

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"  # cwd /tmp/tmpqwh7888i
HELLO = TRANSCRIPTS / "hello-world-script.jsonl"  # cwd /tmp/tmp74wiyiny


def test_excluded_paths_match_folders_globs_and_relative_entries() -> None:
    policy = Policy(
        ("/home/me/secret", "**/scratch-*/**", "client-x"), base=Path("/home/me/.claude/projects")
    )
    assert policy.excludes("/home/me/secret") and policy.excludes("/home/me/secret/sub")
    assert not policy.excludes("/home/me/secretive")
    assert policy.excludes("/work/scratch-12") and policy.excludes("/work/scratch-12/deep/file.jsonl")
    assert policy.excludes("/home/me/.claude/projects/client-x/s.jsonl")
    assert not policy.excludes("/work/app") and not Policy().excludes("/anything")


def test_keep_length_days_is_by_modification_time(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_text("{}")
    old = time.time() - 10 * 86_400
    os.utime(source, (old, old))
    assert Policy(keep_days=7).too_old(source) and not Policy(keep_days=30).too_old(source)
    assert not Policy().too_old(source)


def _run(
    tmp_path: Path, tracking: dict[str, object], *sources: Path
) -> tuple[dict[str, object], dict[str, str]]:
    folder = tmp_path / "transcripts"
    folder.mkdir(exist_ok=True)
    for source in sources:
        shutil.copy(source, folder / source.name)
    config = tmp_path / "graphiti.config.json"
    config.write_text(json.dumps({"session_tracking": tracking}))
    env = {**os.environ, "GRAPHITI_HOME": str(tmp_path / "home")}
    db = tmp_path / "graph.falkordb"
    done = cli("ingest", str(folder), "--json", "--config", str(config), "--db", str(db), env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_an_excluded_project_stays_out_of_ingest(tmp_path: Path) -> None:
    report = _run(tmp_path, {"excluded_paths": ["/tmp/tmpqwh7888i"]}, PORT, HELLO)
    assert report["ingested"] == 1 and [s["source"] for s in report["sessions"]] == [
        str(tmp_path / "transcripts" / HELLO.name)
    ]
    assert len(report["excluded"]) == 1 and "tmpqwh7888i is in excluded_paths" in report["excluded"][0]


def test_old_transcripts_stay_out_with_keep_length_days(tmp_path: Path) -> None:
    report = _run(tmp_path, {"keep_length_days": 3650}, PORT)
    assert report["ingested"] == 1
    copy = tmp_path / "transcripts" / PORT.name
    old = time.time() - 4000 * 86_400
    os.utime(copy, (old, old))
    report = _run(tmp_path, {"keep_length_days": 3650})
    assert report["ingested"] == 0 and report["excluded"] == [f"{copy}: older than keep_length_days"]


def test_store_in_graph_false_writes_summary_files_only(tmp_path: Path) -> None:
    tracking = {"store_in_graph": False, "summarization": {"include_decisions": False}}
    report = _run(tmp_path, tracking, PORT)
    (session,) = report["sessions"]
    stored = tmp_path / "home" / "summaries" / session["group_id"] / f"{session['session_id']}.json"
    summary = json.loads(stored.read_text())
    assert summary["session_id"] == session["session_id"] and summary["summary_version"] == 1
    assert summary["files_modified"] and not summary.get("key_decisions")
    assert stored.stat().st_mode & 0o077 == 0
    assert not (tmp_path / "graph.falkordb").exists()  # the graph was never opened
    again = _run(tmp_path, tracking)
    assert again["ingested"] == 0 and again["skipped"] == 1  # its own ledger: unchanged is unchanged
