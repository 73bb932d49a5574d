"""The MCP server as an agent uses it: `graphiti-sessions mcp` in its own process, over stdio, called
with the MCP SDK's client, on both backends."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from conftest import backend_cli_args
from graph.test_history import SESSIONS
from graph.test_search import STRONG, WEAK, redis_sessions
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.mcp.server import bounded, expiring
from graphiti_session_tracking.pipeline.ledger import Ledger
from graphiti_session_tracking.summary.model import CommitRecord

# Session 4 committed its work: a commit leads back to it, and to its error and setting.
COMMIT = CommitRecord(sha="c0ffee12", message="Pin JWT_EXPIRY to 900", branch="main", files=[".env"])
WITH_COMMIT = [*SESSIONS[:3], SESSIONS[3].model_copy(update={"commits": [COMMIT]}), *SESSIONS[4:]]

TOOLS = {
    "search_sessions",
    "get_decisions",
    "get_error_resolutions",
    "get_config_history",
    "get_file_history",
    "get_session_summary",
    "session_tracking_status",
    "get_recap",
    "get_commits",
}


async def call(client: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await client.call_tool(tool, arguments)
    assert not result.isError, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    assert "\n " not in text  # compact JSON: indentation was a sixth of each answer
    return json.loads(text)


def server_in(
    config: GraphConfig, home: Path, cwd: Path, project_dir: Path | None = None
) -> StdioServerParameters:
    """`graphiti-sessions mcp` as Claude Code starts it: in the project folder (`cwd`), with
    CLAUDE_PROJECT_DIR when `project_dir` is given (and never the one of the caller's own session)."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env |= {"HOME": str(home), "GRAPHITI_TELEMETRY_ENABLED": "false"}
    if project_dir is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project_dir)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphiti_session_tracking", "mcp", *backend_cli_args(config)],
        env=env,
        cwd=cwd,
    )


async def refused(client: ClientSession, tool: str, **arguments: Any) -> str:
    """A call the tool refuses: an MCP tool error (isError), whose text says why."""
    result = await client.call_tool(tool, arguments)
    assert result.isError, result.content
    return str(result.content[0].text)  # type: ignore[union-attr]


async def test_the_tools_answer_from_the_graph(graph_config: GraphConfig, tmp_path: Path) -> None:
    async with open_backend(graph_config) as backend:
        group = (await SessionGraphWriter(backend).ingest_many(WITH_COMMIT))[0].group_id
    env = {**os.environ, "HOME": str(tmp_path), "GRAPHITI_TELEMETRY_ENABLED": "false"}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphiti_session_tracking", "mcp", *backend_cli_args(graph_config)],
        env=env,
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert {tool.name for tool in tools} == TOOLS
        for described in tools:  # read-only, and every parameter says what it takes
            assert described.annotations is not None and described.annotations.readOnlyHint, described.name
            for name, schema in described.inputSchema["properties"].items():
                assert schema.get("description"), (described.name, name)

        current = await call(session, "get_config_history", current=True, group_id=group)
        assert [(r["setting"], r["new_value"]) for r in current["rows"]] == [("JWT_EXPIRY", "900")]
        history = await call(session, "get_config_history", setting="JWT_EXPIRY", group_id=group, limit=2)
        assert [r["new_value"] for r in history["rows"]] == ["60", "3600"]
        assert "more exist" in history["note"]

        errors = await call(session, "get_error_resolutions", seen_before=True, group_id=group)
        assert {(r["times_seen"], r["last_fix"]) for r in errors["rows"]} == {(3, "Edited tokens.py")}

        summary = await call(session, "get_session_summary", session="s4", group_id=group)
        assert {r["relation"] for r in summary["rows"]} >= {"CHANGED_CONFIG", "RESOLVED_ERROR"}

        made = await call(session, "get_commits", sha="C0FFEE", group_id=group)
        assert [(r["sha"], r["session_id"]) for r in made["commits"]["rows"]] == [
            ("c0ffee12", "s4-0000-0000")
        ]
        assert {"RESOLVED_ERROR", "MADE_COMMIT"} <= {r["relation"] for r in made["session"]["rows"]}
        by_file = await call(session, "get_commits", file=".env", group_id=group)
        assert [r["message"] for r in by_file["rows"]] == ["Pin JWT_EXPIRY to 900"]
        assert "commit sha" in await refused(session, "get_commits", sha="main~1")
        assert "less than or equal to 500" in await refused(session, "get_decisions", limit=2**63)

        file = await call(session, "get_file_history", path=".env", group_id=group)
        assert [r["new_value"] for r in file["config_changes"]["rows"]] == ["60", "3600", "900"]

        recap = await call(session, "get_recap", session="s4", budget=400)
        assert recap["recap"].startswith("# Recap of the last session") and recap["group_id"] == group
        assert "JWT_EXPIRY" in recap["recap"]  # the setting in force, from the graph
        assert await refused(session, "get_recap", session="no-such-session")

        hits = await call(session, "search_sessions", query="KeyError", group_id=group)
        assert any("KeyError" in hit["text"] for hit in hits["rows"])

        assert "invalid group id" in await refused(session, "get_decisions", group_id="not a group")

        status = await call(session, "session_tracking_status")
        assert status["groups"] == {group: len(SESSIONS)} and status["sessions"] == len(SESSIONS)


async def test_a_server_answers_for_its_project_and_scores_by_relevance(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    """Started in a project folder, every call without a group id answers for that project's group
    and says so; all_projects widens it; search hits carry the full-text index's relevance."""
    app, api, elsewhere = (tmp_path.resolve() / name for name in ("app", "api", "elsewhere"))
    for folder in (app, api, elsewhere):
        folder.mkdir()
    async with open_backend(graph_config) as backend:
        await SessionGraphWriter(backend).ingest_many(redis_sessions(str(app), str(api)))
    app_group, api_group = GroupId.for_project(str(app)), GroupId.for_project(str(api))

    async with (
        stdio_client(server_in(graph_config, tmp_path, cwd=app)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for described in (await session.list_tools()).tools:  # the model is told it need not pass one
            if "group_id" in described.inputSchema["properties"]:
                assert "all_projects" in described.inputSchema["properties"], described.name
                assert "answers for the project the server was started in" in (described.description or "")

        hits = await call(session, "search_sessions", query="Redis cache", record_type="decision")
        assert hits["scope"] == {"group_id": app_group, "project": str(app)}
        assert hits["scored_by"] == "full_text" and {h["group_id"] for h in hits["rows"]} == {app_group}
        scores = [h["score"] for h in hits["rows"]]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1
        nodes = {h["text"]: h["score"] for h in hits["rows"] if h["kind"] == "node"}
        assert nodes[STRONG] > nodes[WEAK] > 0

        every = await call(session, "search_sessions", query="Redis cache", all_projects=True)
        assert every["scope"] == "all" and {h["group_id"] for h in every["rows"]} == {app_group, api_group}
        scores = [h["score"] for h in every["rows"]]
        assert scores == sorted(scores, reverse=True)

        mine = await call(session, "get_decisions")
        assert mine["scope"]["group_id"] == app_group
        assert {r["decision"] for r in mine["rows"]} == {STRONG, WEAK}
        widened = await call(session, "get_decisions", all_projects=True)
        assert len(widened["rows"]) == 3 and widened["scope"] == "all"
        named = await call(session, "get_decisions", group_id=api_group)
        assert named["scope"] == {"group_id": api_group} and len(named["rows"]) == 1
        assert "not both" in await refused(session, "get_decisions", group_id=api_group, all_projects=True)

        other = await call(session, "get_session_summary", session="ffff6666")  # api's session
        assert other["rows"] == [] and "all_projects=true" in other["note"]
        assert (await call(session, "get_session_summary", session="ffff6666", all_projects=True))["rows"]
        status = await call(session, "session_tracking_status")
        assert status["scope"] == {"group_id": app_group, "project": str(app)}

    # CLAUDE_PROJECT_DIR names the project when Claude Code sets it; a folder without sessions
    # answers for every project, and says so.
    for project_dir, scope in ((api, {"group_id": api_group, "project": str(api)}), (None, "all")):
        started = server_in(graph_config, tmp_path, cwd=elsewhere, project_dir=project_dir)
        async with stdio_client(started) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            answer = await call(session, "get_decisions")
            assert answer["scope"] == scope
            assert len(answer["rows"]) == (1 if project_dir else 3)


def test_answers_are_bounded_and_say_what_was_left_out() -> None:
    rows = [{"text": "x" * 1000, "n": i} for i in range(100)]
    answer = bounded(rows, 50)
    assert len(json.dumps(answer["rows"])) <= 20_000 and "more exist" in answer["note"]
    assert bounded(rows[:3], 50) == {"rows": rows[:3]}


def test_transcripts_claude_code_deletes_soon_are_named_until_ingested(tmp_path: Path) -> None:
    import time

    root = tmp_path / "projects" / "-work-app"
    root.mkdir(parents=True)
    old, fresh = root / "old.jsonl", root / "fresh.jsonl"
    for path in (old, fresh):
        path.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    now = time.time()
    os.utime(old, (now - 25 * 86400, now - 25 * 86400))  # deleted in 5 days (default 30)
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        assert [row["path"] for row in expiring(ledger, tmp_path / "projects", now)] == [str(old)]
        ledger.record(old, byte_offset=old.stat().st_size, session_id="s", group_id="g", summary_version=1)
        assert expiring(ledger, tmp_path / "projects", now) == []
