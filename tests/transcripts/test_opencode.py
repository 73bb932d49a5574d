"""The OpenCode readers on a session kept both ways: the JSON tree in tests/fixtures/opencode/todo-api
(see SOURCE.md) and an opencode.db built here from it as OpenCode's json-migration.ts builds one; and
on the two copied synthetic trees, on damaged records, and on databases that cannot be read."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, TRANSCRIPTS

from graphiti_session_tracking.summary import summarize_session
from graphiti_session_tracking.transcripts import Session, TokenUsage, ToolKind
from graphiti_session_tracking.transcripts import opencode_db as db_module
from graphiti_session_tracking.transcripts.opencode import (
    OPENCODE_TOOL_KINDS,
    is_child_session,
    is_opencode_session,
    opencode_tree_fingerprint,
    read_opencode,
)
from graphiti_session_tracking.transcripts.opencode_db import (
    OpenCodeDatabaseError,
    opencode_db_fingerprint,
    opencode_db_sessions,
    read_opencode_db,
)

OPENCODE = FIXTURES / "opencode"
STORAGE = OPENCODE / "todo-api" / "storage"
PROJECT = "9f2c4e81b7a05d3c6e1f8a24b90d7c35e6a1f402"
SID, CHILD_ID = "ses_55f75300fffeLCIU07TeAvIZ9v", "ses_55f7503d2ffewhDviyVmcLkQmF"
SESSION = STORAGE / "session" / PROJECT / f"{SID}.json"
CHILD = STORAGE / "session" / PROJECT / f"{CHILD_ID}.json"
V2 = OPENCODE / "agent-sessions__storage_v2"
LEGACY = OPENCODE / "agent-sessions__storage_legacy"
CWD = "/home/dev/todo-api"

# The columns of packages/opencode/src/{project/project.sql.ts, session/session.sql.ts} (anomalyco/opencode).
SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text,
  icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer,
  sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
  version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer,
  summary_files integer, summary_diffs text, cost real NOT NULL DEFAULT 0,
  tokens_input integer NOT NULL DEFAULT 0, tokens_output integer NOT NULL DEFAULT 0,
  tokens_reasoning integer NOT NULL DEFAULT 0, tokens_cache_read integer NOT NULL DEFAULT 0,
  tokens_cache_write integer NOT NULL DEFAULT 0, revert text, permission text, goal text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE todo (session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE, content text NOT NULL,
  status text NOT NULL, priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, PRIMARY KEY (session_id, position));
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""


def _ms(record: Any, *keys: str) -> int | None:
    """`record[keys[0]][keys[1]]…` when it is an integer (as json-migration.ts's `data.time?.created`)."""
    for key in keys:
        record = record.get(key) if isinstance(record, dict) else None
    return record if isinstance(record, int) and not isinstance(record, bool) else None


def migrate(storage: Path, db: Path, journal: str = "wal") -> Path:
    """An opencode.db holding the tree at `storage`, moved as json-migration.ts moves it: ids from the
    file names, each message and part object without its ids in `data`, a missing time `now`."""
    now = 1_763_700_000_000
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA)
    conn.execute(f"PRAGMA journal_mode={journal}")
    for file in storage.glob("project/*.json"):
        p = json.loads(file.read_text())
        conn.execute(
            "INSERT INTO project (id, worktree, vcs, time_created, time_updated, time_initialized, sandboxes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (file.stem, p["worktree"], p.get("vcs"), _ms(p, "time", "created") or now,
             _ms(p, "time", "updated") or now, _ms(p, "time", "initialized"), json.dumps(p.get("sandboxes", []))),
        )  # fmt: skip
    for file in storage.glob("session/*/*.json"):
        s = json.loads(file.read_text())
        text = {
            k: s.get(k) if isinstance(s.get(k), str) else ""
            for k in ("slug", "directory", "title", "version")
        }
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
            "time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (file.stem, file.parent.name, s.get("parentID"), text["slug"], text["directory"], text["title"],
             text["version"], _ms(s, "time", "created") or now, _ms(s, "time", "updated") or now),
        )  # fmt: skip
    owners: dict[str, tuple[str, int]] = {}
    for file in storage.glob("message/*/*.json"):
        m = json.loads(file.read_text())
        created = _ms(m, "time", "created") or now
        owners[file.stem] = (file.parent.name, created)
        data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
        updated = _ms(m, "time", "completed") or created
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (file.stem, file.parent.name, created, updated, json.dumps(data)),
        )
    for file in storage.glob("part/*/*.json"):
        p = json.loads(file.read_text())
        session_id, created = owners[file.parent.name]
        when = _ms(p, "time", "start") or _ms(p, "state", "time", "start") or created
        data = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (file.stem, file.parent.name, session_id, when, when, json.dumps(data)),
        )
    conn.commit()
    conn.close()
    return db


def stored(storage: Path = STORAGE) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Messages by id and parts by message id, read straight from the files (not by the reader)."""
    messages = {f.stem: json.loads(f.read_text()) for f in storage.glob("message/*/*.json")}
    parts: dict[str, list[dict[str, Any]]] = {}
    for file in sorted(storage.glob("part/*/*.json")):
        parts.setdefault(file.parent.name, []).append(json.loads(file.read_text()))
    return messages, parts


def at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def calls(session: Session) -> list[tuple[Any, ...]]:
    """The tool calls without their record numbers (which a skipped record shifts)."""
    return [
        (c.id, c.name, c.kind, c.input, c.timestamp, c.result, c.from_subagent) for c in session.tool_calls
    ]


def messages_of(session: Session) -> list[tuple[Any, ...]]:
    return [
        (m.uuid, m.role, m.text, m.thinking, m.is_meta, m.timestamp, m.usage, m.from_subagent, m.is_sidechain)
        for m in session.messages
    ]


def copy_tree(tmp_path: Path) -> Path:
    """A copy of the fixture's storage tree to change; returns its session file."""
    shutil.copytree(STORAGE, tmp_path / "storage")
    return tmp_path / "storage" / "session" / PROJECT / f"{SID}.json"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return migrate(STORAGE, tmp_path / "opencode.db")


def test_tree_and_database_read_the_same_session(database: Path) -> None:
    tree, db = read_opencode(SESSION), read_opencode_db(database, SID)
    assert tree.problems == [] and db.problems == []
    assert db.source_file == f"{database}#{SID}" and db.subagent_files == [f"{database}#{CHILD_ID}"]
    assert tree.messages == db.messages and tree.tool_calls == db.tool_calls
    for field in ("session_id", "cwd", "agent", "version", "started_at", "ended_at", "usage", "summaries"):
        assert getattr(tree, field) == getattr(db, field), field
    assert tree.record_counts == db.record_counts and tree.lines_read == db.lines_read
    assert len(tree.tool_calls) == 11 and len(tree.messages) == 15


def test_identity_times_and_records_read() -> None:
    session = read_opencode(SESSION)
    info = json.loads(SESSION.read_text())
    messages, parts = stored()
    own = [m for m in messages.values() if m["sessionID"] == SID]
    own_parts = [p for m in own for p in parts.get(m["id"], [])]
    assert (session.session_id, session.agent, session.version, session.cwd) == (
        SID,
        "opencode",
        "1.0.85",
        CWD,
    )
    times = [info["time"]["created"]]
    for m in messages.values():
        times += [m["time"]["created"], *([m["time"]["completed"]] if "completed" in m["time"] else [])]
    for p in (p for ps in parts.values() for p in ps):
        times += [t for box in (p.get("time", {}), p.get("state", {}).get("time", {})) for t in box.values()]
    assert session.started_at == at(info["time"]["created"]) and session.ended_at == at(max(times))
    assert session.lines_read == 1 + len(own) + len(own_parts)  # the session's own records
    files = [SESSION, *(STORAGE / "message" / SID).glob("*.json")]
    files += [f for m in own for f in (STORAGE / "part" / m["id"]).glob("*.json")]
    assert session.end_offset == sum(f.stat().st_size for f in files)
    assert session.record_counts == {
        "session": 2,
        **Counter(f"message:{m['role']}" for m in messages.values()),
        **Counter(f"part:{p['type']}" for ps in parts.values() for p in ps),
    }


def test_tokens_are_the_sum_of_step_finish_parts() -> None:
    session = read_opencode(SESSION)
    messages, parts = stored()
    steps = [p["tokens"] for ps in parts.values() for p in ps if p["type"] == "step-finish"]
    assert len(steps) == 9  # the sub-agent's and the compaction's included
    assert session.usage == TokenUsage(
        input_tokens=sum(t["input"] for t in steps),
        output_tokens=sum(t["output"] + t["reasoning"] for t in steps),
        cache_creation_input_tokens=sum(t["cache"]["write"] for t in steps),
        cache_read_input_tokens=sum(t["cache"]["read"] for t in steps),
    )
    # A message's own `tokens` holds its last step only: the first response made two model calls.
    first = next(m for m in session.messages if m.role == "assistant")
    two_steps = [p["tokens"] for p in parts[first.uuid] if p["type"] == "step-finish"]
    assert len(two_steps) == 2 and messages[first.uuid]["tokens"] == two_steps[-1]
    assert first.usage is not None and first.usage.input_tokens == sum(t["input"] for t in two_steps)


def test_tool_calls_by_kind_linked_to_their_results() -> None:
    session = read_opencode(SESSION)
    _, parts = stored()
    tools = {p["callID"]: p for ps in parts.values() for p in ps if p["type"] == "tool"}
    assert Counter(c.kind for c in session.tool_calls) == {
        ToolKind.COMMAND: 5,
        ToolKind.READ: 1,
        ToolKind.EDIT: 1,
        ToolKind.WRITE: 1,
        ToolKind.TODO: 1,
        ToolKind.SUBAGENT: 1,
        ToolKind.SEARCH: 1,
    }
    assert {c.id for c in session.tool_calls} == set(tools)
    for call in session.tool_calls:
        state = tools[call.id]["state"]
        assert call.name == tools[call.id]["tool"] and call.kind is OPENCODE_TOOL_KINDS[call.name]
        assert call.result is not None and call.result.is_error == (
            state["status"] == "error" or state.get("metadata", {}).get("exit", 0) != 0
        )
        assert call.result.timestamp == at(state["time"]["end"]) and call.timestamp == at(
            state["time"]["start"]
        )
    attached = [c for m in session.messages for c in m.tool_calls]
    assert attached == session.tool_calls
    named = {c.name: c for c in session.tool_calls}
    assert named["edit"].input["file_path"] == f"{CWD}/src/todo/dates.py"
    assert named["edit"].input["new_string"].endswith("return datetime.fromisoformat(value).date()")
    assert named["edit"].input["old_string"].endswith("return date.fromisoformat(value)")
    assert named["write"].input["file_path"] == f"{CWD}/tests/test_dates.py"
    assert named["write"].input["content"].startswith("from datetime import date\n")
    assert named["read"].input == {"file_path": f"{CWD}/src/todo/dates.py"}
    assert [t["status"] for t in named["todowrite"].input["todos"]] == [
        "completed",
        "completed",
        "in_progress",
    ]
    assert named["task"].input["description"] == "Review date parsing fix"
    assert named["task"].input["prompt"].startswith("Review src/todo/dates.py")
    assert named["grep"].input["pattern"] == "parse_due"


def test_a_failing_command_is_an_error_starting_with_its_exit_code() -> None:
    bash = [c for c in read_opencode(SESSION).tool_calls if c.name == "bash"]
    failing, passing, commit, _, log = bash
    assert failing.input == {"command": "python -m pytest -q", "description": "Run the test suite"}
    assert failing.result is not None and failing.result.is_error
    assert failing.result.text.startswith("Exit code 1\n..F..")
    assert "E       ValueError: Invalid isoformat string: '2025-11-20T09:30'" in failing.result.text
    assert passing.result is not None and passing.result.text.endswith("8 passed in 0.19s\n")
    assert commit.result is not None and commit.result.text.startswith("[main 7c3e9a1] Fix parse_due")
    assert not (passing.result.is_error or commit.result.is_error)
    assert log.input == {"command": "git log --oneline -1"}


def test_a_command_and_a_turn_the_user_stopped() -> None:
    session = read_opencode(SESSION)
    server = next(c for c in session.tool_calls if c.input.get("command", "").startswith("uvicorn"))
    assert server.result is not None and server.result.is_error
    assert server.result.text.startswith("[Request interrupted by user for tool use]\nINFO:     Will watch")
    turn = next(i for i, m in enumerate(session.messages) if server in m.tool_calls)
    stopped = session.messages[turn + 1]
    assert (stopped.role, stopped.text, stopped.is_meta) == ("user", "[Request interrupted by user]", True)
    assert session.problems == []  # a turn the user stopped is not a problem of the input


def test_only_typed_text_is_a_request() -> None:
    session = read_opencode(SESSION)
    typed = [m.text for m in session.messages if m.is_human and not m.from_subagent]
    assert typed == [
        "Due dates like `2025-11-20T09:30` crash `parse_due()` with a ValueError. Fix the parser, add a test "
        "for it, and commit when the tests pass.",
        "Now start the dev server so I can try it.",
    ]
    synthetic = next(m for m in session.messages if m.text == "The following tool was executed by the user")
    assert synthetic.role == "user" and synthetic.is_meta and not synthetic.is_human
    assert session.user_message_count == 2 + 1  # and the sub-agent's prompt


def test_compaction_summary_is_a_summary_not_a_message() -> None:
    session = read_opencode(SESSION)
    messages, parts = stored()
    (summary,) = [m for m in messages.values() if m.get("summary") is True]
    text = next(p["text"] for p in parts[summary["id"]] if p["type"] == "text")
    assert session.summaries == [text] and text.startswith("## Summary")
    assert summary["id"] not in {m.uuid for m in session.messages}


def test_the_sub_agent_session_is_read_into_its_parent() -> None:
    session = read_opencode(SESSION)
    assert session.subagent_files == [str(CHILD)]
    sub = [m for m in session.messages if m.from_subagent]
    assert [m.role for m in sub] == ["user", "assistant", "assistant"] and all(m.is_sidechain for m in sub)
    assert sub[0].text.startswith("Review src/todo/dates.py") and not sub[0].is_meta
    (grep,) = [c for c in session.tool_calls if c.from_subagent]
    assert grep.name == "grep" and grep.is_sidechain and grep.kind is ToolKind.SEARCH
    task = next(c for c in session.tool_calls if c.kind is ToolKind.SUBAGENT)
    assert task.result is not None and task.result.text == sub[-1].text  # the sub-agent's report
    assert is_child_session(CHILD) and not is_child_session(SESSION)
    alone = read_opencode(CHILD)
    assert alone.session_id == CHILD_ID and len(alone.messages) == 3
    assert not any(m.from_subagent for m in alone.messages)


async def test_summary_of_the_session() -> None:
    summary = await summarize_session(read_opencode(SESSION))
    assert (summary.session_id, summary.agent, summary.agent_version) == (SID, "opencode", "1.0.85")
    assert summary.objective.startswith("Due dates like `2025-11-20T09:30` crash `parse_due()`")
    assert summary.files_modified == ["src/todo/dates.py", "tests/test_dates.py"]
    errors = summary.errors_resolved or []
    assert [e.error for e in errors] == [  # pytest's summary line; the stopped server is no error
        "FAILED tests/test_api.py::test_parse_due_datetime - ValueError: Invalid isoformat string: '2025-11-20T09:30'"
    ]
    assert errors[0].fix.startswith("Edited src/todo/dates.py")
    assert [(c.sha, c.message) for c in summary.commits or []] == [
        ("7c3e9a1", "Fix parse_due for ISO datetimes")
    ]
    assert summary.completed_tasks == ["Fix parse_due for ISO datetimes", "Add tests for date parsing"]


def test_the_copied_synthetic_trees_read() -> None:
    small = read_opencode(V2 / "session" / "proj_test" / "ses_s_stage0_small.json")
    assert [(m.role, m.text) for m in small.messages] == [("user", "Hello"), ("assistant", "Found 2 files.")]
    (ls,) = small.tool_calls
    assert (ls.input["command"], ls.result and ls.result.text) == ("ls", "a.txt\nb.txt\n")
    large = read_opencode(V2 / "session" / "proj_test" / "ses_s_stage0_large.json")
    assert [m.text for m in large.messages if m.is_human] == ["Step 1", "Step 2"]
    (failed,) = large.tool_calls
    assert (
        failed.result is not None
        and failed.result.is_error
        and failed.result.text.startswith("Exit code 1\n")
    )
    # Its step-finish counts the tokens once, though the message repeats them.
    assert (large.usage.input_tokens, large.usage.output_tokens) == (120, 16)
    assert "[Request interrupted by user]" in [m.text for m in large.messages]  # MessageAbortedError
    assert large.record_counts["part:compaction"] == large.record_counts["part:patch"] == 1
    drift = read_opencode(LEGACY / "session" / "proj_test" / "ses_s_stage0_drift.json")
    assert drift.session_id == "s_stage0_drift" and drift.cwd == "/tmp/drift" and drift.version == "0.1"
    (cat,) = drift.tool_calls  # its parts lie straight under part/, naming their message
    assert cat.result is not None and cat.result.text == "# Title\n\nBody\n"
    assert drift.messages[-1].text == "Read README and extracted the title."
    assert all(s.problems == [] for s in (small, large, drift))


def test_damaged_files_are_problems_naming_them_and_the_rest_is_read(tmp_path: Path) -> None:
    session_file = copy_tree(tmp_path)
    good = read_opencode(SESSION)
    first = next(m for m in good.messages if m.role == "assistant")
    reasoning = next(
        f
        for f in (tmp_path / "storage" / "part" / first.uuid).glob("*.json")
        if '"reasoning"' in f.read_text()
    )
    reasoning.write_text("\n".join(reasoning.read_text().splitlines()[:3]) + '\n  "type": "reas')
    request = next(m for m in good.messages if m.text == "Now start the dev server so I can try it.")
    message = tmp_path / "storage" / "message" / SID / f"{request.uuid}.json"
    message.write_text("[1, 2]")
    session = read_opencode(session_file)
    assert sorted((p.source, p.line, p.message[:35]) for p in session.problems) == sorted(
        [
            (str(reasoning), 4, "invalid JSON: Unterminated string s"),
            (str(message), 1, "expected a JSON object, got list"),
        ]
    )
    assert [m for m in messages_of(session) if m[0] != first.uuid] == [
        m for m in messages_of(good) if m[0] not in (first.uuid, request.uuid)
    ]
    damaged_first = next(m for m in session.messages if m.uuid == first.uuid)
    assert damaged_first.thinking == "" and damaged_first.text == first.text
    assert calls(session) == calls(good)


def test_damaged_rows_are_problems_naming_database_and_row(database: Path) -> None:
    good = read_opencode_db(database, SID)
    first = next(m for m in good.messages if m.role == "assistant")
    conn = sqlite3.connect(database)
    (part_id,) = conn.execute(
        "SELECT id FROM part WHERE message_id = ? AND json_extract(data, '$.type') = 'reasoning'",
        (first.uuid,),
    ).fetchone()
    conn.execute("UPDATE part SET data = ? WHERE id = ?", ('{"type": "reasoning", "text": "Let', part_id))
    request = next(m for m in good.messages if m.text == "Now start the dev server so I can try it.")
    conn.execute("UPDATE message SET data = '[1, 2]' WHERE id = ?", (request.uuid,))
    conn.commit()
    conn.close()
    session = read_opencode_db(database, SID)
    assert [(p.source, p.line, p.message.split(":")[0]) for p in session.problems] == [
        (f"{database}#{SID}", 0, f"part {part_id}"),
        (f"{database}#{SID}", 0, f"message {request.uuid}"),
    ]
    assert "data is not JSON" in session.problems[0].message
    assert session.problems[1].message.endswith("data is not a JSON object but list")
    assert calls(session) == calls(good)
    assert len(session.messages) == len(good.messages) - 1


def test_unknown_part_types_are_counted(tmp_path: Path, database: Path) -> None:
    session_file = copy_tree(tmp_path)
    last = read_opencode(SESSION).messages[-4]  # the `git log` response
    part = {"id": "prt_ffffffffffff0000000000000", "type": "diff-preview", "files": 2}
    (tmp_path / "storage" / "part" / last.uuid / f"{part['id']}.json").write_text(json.dumps(part))
    conn = sqlite3.connect(database)
    conn.execute(
        "INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
        (part["id"], last.uuid, SID, json.dumps({"type": "diff-preview"})),
    )
    conn.commit()
    conn.close()
    for session in (read_opencode(session_file), read_opencode_db(database, SID)):
        assert session.record_counts["part:diff-preview"] == 1 and session.problems == []
        assert calls(session) == calls(read_opencode(SESSION))


def test_tree_fingerprint_follows_every_file_of_the_session(tmp_path: Path) -> None:
    session_file = copy_tree(tmp_path)
    before = opencode_tree_fingerprint(session_file)
    assert before[0] == sum(f.stat().st_size for f in (tmp_path / "storage").rglob("*.json")) - sum(
        f.stat().st_size for f in (tmp_path / "storage" / "project").glob("*.json")
    )
    messages, _ = stored(tmp_path / "storage")
    child_message = next(m for m in messages.values() if m["sessionID"] == CHILD_ID)
    new = tmp_path / "storage" / "part" / child_message["id"] / "prt_ffffffffffff0000000000000.json"
    new.write_text(json.dumps({"type": "text", "text": "one more thing"}))
    added = opencode_tree_fingerprint(session_file)
    assert added[0] == before[0] + new.stat().st_size and added[1] >= before[1]
    touched = next((tmp_path / "storage" / "part").glob("*/*.json"))
    later = added[1] + 5_000_000_000
    os.utime(touched, ns=(later, later))
    assert opencode_tree_fingerprint(session_file) == (added[0], later)


def test_database_fingerprint_follows_every_row_of_the_session(database: Path) -> None:
    before = opencode_db_fingerprint(database, SID)
    conn = sqlite3.connect(database)
    rows, size, newest = conn.execute(
        "SELECT COUNT(*), SUM(LENGTH(data)), MAX(time_updated) FROM part"
    ).fetchone()
    m_rows, m_size, m_newest = conn.execute(
        "SELECT COUNT(*), SUM(LENGTH(data)), MAX(time_updated) FROM message"
    ).fetchone()
    (s_newest,) = conn.execute("SELECT MAX(time_updated) FROM session").fetchone()
    assert before == (rows + size + m_rows + m_size, max(newest, m_newest, s_newest) * 1_000_000)
    (part_id,) = conn.execute("SELECT id FROM part WHERE session_id = ? LIMIT 1", (CHILD_ID,)).fetchone()
    conn.execute("UPDATE part SET time_updated = ? WHERE id = ?", (newest + 1000, part_id))  # the sub-agent's
    conn.commit()
    assert opencode_db_fingerprint(database, SID) == (before[0], (newest + 1000) * 1_000_000)
    conn.execute(
        "UPDATE part SET data = json_set(data, '$.text', 'a longer text than before') WHERE id = ?",
        (part_id,),
    )
    conn.commit()
    conn.close()
    assert opencode_db_fingerprint(database, SID)[0] != before[0]


def test_database_sessions_are_the_top_level_ones_oldest_first(database: Path) -> None:
    assert opencode_db_sessions(database) == [SID]
    conn = sqlite3.connect(database)
    for ident, created in (("ses_later", 1_900_000_000_000), ("ses_earlier", 1_600_000_000_000)):
        conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
            "VALUES (?, ?, 's', '/tmp', 't', '1.1.0', ?, ?)",
            (ident, PROJECT, created, created),
        )
    conn.commit()
    conn.close()
    assert opencode_db_sessions(database) == ["ses_earlier", SID, "ses_later"]
    empty = read_opencode_db(database, "ses_later")
    assert (empty.session_id, empty.cwd, empty.messages, empty.problems) == ("ses_later", "/tmp", [], [])


def test_the_database_is_only_read(tmp_path: Path) -> None:
    database = migrate(STORAGE, tmp_path / "opencode.db", journal="delete")
    content = database.read_bytes()
    read_opencode_db(database, SID)
    opencode_db_fingerprint(database, SID)
    assert database.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]
    # While OpenCode writes (WAL, its mode), a read sees the last committed state.
    wal = migrate(STORAGE, tmp_path / "wal.db")
    writer = sqlite3.connect(wal)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM part")
    assert read_opencode_db(wal, SID).tool_calls == read_opencode(SESSION).tool_calls
    writer.rollback()
    writer.close()


def test_a_database_that_cannot_be_read_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "_BUSY_TIMEOUT_S", 0.05)
    locked = migrate(STORAGE, tmp_path / "locked.db", journal="delete")
    writer = sqlite3.connect(locked)
    writer.execute("BEGIN EXCLUSIVE")
    with pytest.raises(OpenCodeDatabaseError, match=r"locked\.db: .*locked.*read it again later"):
        read_opencode_db(locked, SID)
    writer.rollback()
    writer.close()
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"this is not an OpenCode database\n" * 200)
    with pytest.raises(OpenCodeDatabaseError, match=r"damaged\.db: cannot read the OpenCode database"):
        opencode_db_sessions(damaged)
    other = tmp_path / "other.db"
    sqlite3.connect(other).close()
    with pytest.raises(OpenCodeDatabaseError, match="no such table: session"):
        opencode_db_sessions(other)
    with pytest.raises(OpenCodeDatabaseError, match="no session ses_missing"):
        read_opencode_db(migrate(STORAGE, tmp_path / "ok.db"), "ses_missing")
    with pytest.raises(OpenCodeDatabaseError, match="no such OpenCode database"):
        opencode_db_fingerprint(tmp_path / "absent.db", SID)
    assert isinstance(OpenCodeDatabaseError("x"), ValueError)


async def test_sniffing_knows_session_files_only(tmp_path: Path) -> None:
    assert is_opencode_session(SESSION) and is_opencode_session(CHILD)
    assert all(
        is_opencode_session(p) for p in (*V2.glob("session/*/*.json"), *LEGACY.glob("session/*/*.json"))
    )
    assert not any(is_opencode_session(p) for p in TRANSCRIPTS.glob("*.jsonl"))
    assert not any(is_opencode_session(p) for p in (FIXTURES / "codex").glob("*.jsonl"))
    assert not any(
        is_opencode_session(p) for p in (*STORAGE.glob("message/*/*.json"), *STORAGE.glob("part/*/*.json"))
    )
    assert not any(is_opencode_session(p) for p in FIXTURES.glob("legacy/**/*.json"))
    summary = await summarize_session(read_opencode(SESSION))
    for where in (tmp_path / "summary.json", tmp_path / "storage" / "session" / PROJECT / "summary.json"):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(summary.model_dump_json())
        assert not is_opencode_session(where)
    assert not is_opencode_session(tmp_path / "storage" / "session" / PROJECT / "missing.json")


def _write_session(storage: Path, parts: list[dict[str, Any]], error: dict[str, Any] | None = None) -> Path:
    """A one-request session in a JSON tree at `storage`: a user message, then one assistant message
    with `parts` (ids given in order); returns its session file."""
    created = 1_763_700_000_000
    files: dict[str, dict[str, Any]] = {
        "session/global/ses_1.json": {"id": "ses_1", "projectID": "global", "directory": "/work/app",
                                       "version": "1.1.4", "time": {"created": created, "updated": created}},
        "message/ses_1/msg_1.json": {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": created}},
        "part/msg_1/prt_1.json": {"id": "prt_1", "type": "text", "text": "Add the settings module"},
        "message/ses_1/msg_2.json": {"id": "msg_2", "sessionID": "ses_1", "role": "assistant", "parentID": "msg_1",
                                     "time": {"created": created + 1000}, **({"error": error} if error else {})},
    }  # fmt: skip
    for n, part in enumerate(parts, start=2):
        files[f"part/msg_2/prt_{n:02d}.json"] = {"id": f"prt_{n:02d}", "messageID": "msg_2", **part}
    for name, content in files.items():
        (storage / name).parent.mkdir(parents=True, exist_ok=True)
        (storage / name).write_text(json.dumps(content))
    return storage / "session" / "global" / "ses_1.json"


def _tool(call_id: str, tool: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool", "callID": call_id, "tool": tool, "state": state}


PATCH = (
    "*** Begin Patch\n*** Add File: app/settings.py\n+DEBUG = False\n+PORT = 8080\n"
    "*** Update File: app/main.py\n@@\n-import os\n+from app import settings\n@@ def port():\n"
    "-    return int(os.environ['PORT'])\n+    return settings.PORT\n*** End Patch"
)
QUESTION = {
    "question": "Which port should the app use?",
    "header": "Port",
    "options": [
        {"label": "8080", "description": "The default"},
        {"label": "3000", "description": "Like dev"},
    ],
    "multiple": False,
}
TIMED_OUT = "Starting...\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms\n</bash_metadata>"


def test_patches_questions_and_other_tools(tmp_path: Path) -> None:
    done = {"status": "completed", "title": "", "metadata": {}, "time": {"start": 1, "end": 2}}
    session = read_opencode(
        _write_session(
            tmp_path / "storage",
            [
                _tool("c1", "apply_patch", {**done, "input": {"patchText": PATCH}, "output": "Success."}),
                _tool("c2", "question", {**done, "input": {"questions": [QUESTION]},
                      "output": 'User has answered your questions: "Which port should the app use?"="8080". '
                                "You can now continue with the user's answers in mind."}),
                _tool("c3", "bash", {**done, "input": {"command": "npm start"}, "output": TIMED_OUT,
                                     "metadata": {"exit": None}}),
                _tool("c4", "edit", {"status": "error", "input": {"filePath": "app/x.py", "oldString": "a",
                      "newString": "b"}, "error": "oldString not found in content", "time": {"start": 3, "end": 4}}),
                _tool("c5", "linear_create_issue", {**done, "input": {"title": "Port"}, "output": "LIN-12"}),
                _tool("c6", "webfetch", {"status": "running", "input": {"url": "https://example.com"},
                                         "time": {"start": 5}}),
                {"type": "step-finish", "reason": "stop", "cost": 0, "tokens": {"input": 10, "output": 5}},
            ],
            error={"name": "APIError", "data": {"message": "Overloaded", "isRetryable": True}},
        )
    )  # fmt: skip
    by_id = {c.id: c for c in session.tool_calls}
    assert [(c.id, c.kind) for c in session.tool_calls] == [
        ("c1#1", ToolKind.WRITE),
        ("c1#2", ToolKind.EDIT),
        ("c2", ToolKind.QUESTION),
        ("c3", ToolKind.COMMAND),
        ("c4", ToolKind.EDIT),
        ("c5", ToolKind.OTHER),
        ("c6", ToolKind.WEB),
    ]
    assert by_id["c1#1"].input == {
        "file_path": "/work/app/app/settings.py",
        "content": "DEBUG = False\nPORT = 8080",
    }
    assert by_id["c1#2"].input["edits"][1] == {
        "old_string": "    return int(os.environ['PORT'])",
        "new_string": "    return settings.PORT",
    }
    assert by_id["c1#1"].result is by_id["c1#2"].result
    assert by_id["c2"].input["questions"][0]["multiSelect"] is False
    assert by_id["c3"].result is not None and by_id["c3"].result.is_error
    assert by_id["c3"].result.text.startswith("Command timed out after 120000 ms\nStarting...")
    assert by_id["c4"].input["file_path"] == "/work/app/app/x.py"
    assert by_id["c4"].result is not None and by_id["c4"].result.is_error
    assert by_id["c4"].result.text == "oldString not found in content"
    assert by_id["c6"].result is None and by_id["c6"].input == {"url": "https://example.com"}
    (problem,) = session.problems  # the failed turn; not a tool failure
    assert problem.source.endswith("msg_2.json") and problem.message == (
        "the assistant's turn ended with APIError: Overloaded"
    )
    assert session.usage == TokenUsage(10, 5, 0, 0)


async def test_a_question_answered_is_a_decision(tmp_path: Path) -> None:
    done = {"status": "completed", "title": "", "metadata": {}, "time": {"start": 1, "end": 2}}
    output = (
        'User has answered your questions: "Which port should the app use?"="8080". '
        "You can now continue with the user's answers in mind."
    )
    tree = _write_session(
        tmp_path / "storage",
        [_tool("c2", "question", {**done, "input": {"questions": [QUESTION]}, "output": output})],
    )
    summary = await summarize_session(read_opencode(tree))
    assert [d.decision for d in summary.key_decisions or []] == ["Which port should the app use? 8080"]


ODD = [None, True, -3, 2.5, float("inf"), 10**30, "", "text", [], [1, "a"], {}, {"x": {"y": None}}]
KEYS = {
    "id", "role", "time", "created", "start", "end", "type", "text", "synthetic", "tool", "callID", "state",
    "status", "input", "output", "metadata", "exit", "error", "name", "data", "tokens", "cache", "read",
    "path", "summary", "sessionId", "filePath", "patchText", "questions", "edits", "todos", "directory",
}  # fmt: skip


def _spoil(value: Any, odd: Any) -> Any:
    """`value` with every field named in KEYS, at any depth, set to `odd`."""
    if isinstance(value, dict):
        return {k: odd if k in KEYS else _spoil(v, odd) for k, v in value.items()}
    if isinstance(value, list):
        return [_spoil(v, odd) for v in value]
    return value


@pytest.mark.parametrize("odd", ODD, ids=repr)
def test_odd_values_are_read_without_an_error(tmp_path: Path, odd: Any) -> None:
    session_file = copy_tree(tmp_path)
    for file in (tmp_path / "storage").glob("*/*/*.json"):
        if file.parent.name != PROJECT:
            file.write_text(json.dumps(_spoil(json.loads(file.read_text()), odd)))
    tree = read_opencode(session_file)
    database = read_opencode_db(migrate(tmp_path / "storage", tmp_path / "opencode.db"), SID)
    assert tree.session_id == database.session_id == SID
    # The task no longer names its sub-agent: the database still has the child's parent_id, the tree
    # has nothing else to find it by.
    assert (tree.record_counts["session"], database.record_counts["session"]) == (1, 2)
    counted = [
        sum(n for k, n in s.record_counts.items() if k.startswith("message:")) for s in (tree, database)
    ]
    assert counted == [12, 12 + 3]
