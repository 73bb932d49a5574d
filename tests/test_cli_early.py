"""A question's database is opened before the command's imports (cli/early.py), and only then."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS, cli
from graph.test_backends import keepers_for, servers_left

from graphiti_session_tracking.cli.early import open_graph_early, options
from graphiti_session_tracking.graph import falkordblite
from graphiti_session_tracking.graph.falkordblite import take_early


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["query", "files", "--db", "a.db", "--json"], {"--db": "a.db"}),
        (
            ["search", "jwt", "--db=a.db", "--backend", "falkordblite"],
            {"--db": "a.db", "--backend": "falkordblite"},
        ),
        (["query", "errors", "--config", "c.json"], {"--config": "c.json"}),
        (["query", "sessions"], {}),
    ],
)
def test_a_reading_command_line_gives_its_database_options(argv: list[str], expected: dict[str, str]) -> None:
    assert options(argv) == expected


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["ingest", "--db", "a.db"],  # writers open the file themselves, for writing
        ["--version"],
        ["query", "--help"],
        ["query"],  # lists the questions
        ["query", "--db", "a.db"],
        ["query", "files", "-h"],
        ["query", "files", "--db", "a.db", "--db", "b.db"],  # twice: click says which wins
        ["query", "files", "--", "--db", "a.db"],
        ["query", "files", "--db"],  # no value: click reports it
        ["query", "files", "--db="],
    ],
)
def test_anything_else_is_left_to_the_command(argv: list[str]) -> None:
    assert options(argv) is None


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("early") / "sessions.falkordb"
    made = cli("ingest", str(TRANSCRIPTS), "--db", str(db))
    assert made.returncode == 0, made.stderr
    assert servers_left(db) == []
    return db


def test_a_question_finds_its_database_open_and_its_server_loaded(database: Path) -> None:
    open_graph_early(["query", "files", "--db", str(database), "--json"])
    assert take_early(database, writable=True) is None  # a writer opens for writing itself
    embedded = take_early(database, writable=False)
    assert embedded is not None
    try:
        assert take_early(database, writable=False) is None  # taken once
        assert len(keepers_for(database)) == 1

        async def files() -> int:
            reader = embedded.reader()
            try:
                graphs = await reader.list_graphs()
                counts = [await reader.ro_query(g, "MATCH (f:File) RETURN count(f)", {}) for g in graphs]
            finally:
                await reader.close()
            return sum(int(rows[0][0]) for _, rows in counts)

        assert asyncio.run(files()) > 0  # the whole file is loaded: the graph answers
    finally:
        embedded.detach()
    assert servers_left(database) == []


def test_the_command_uses_the_early_open_and_answers_as_before(database: Path) -> None:
    result = cli("query", "files", "--db", str(database), "--json")
    assert result.returncode == 0, result.stderr
    assert "hello.sh" in {row["path"] for row in json.loads(result.stdout)}
    assert servers_left(database) == []


def test_other_backends_missing_files_and_help_start_nothing(tmp_path: Path, database: Path) -> None:
    config = tmp_path / "graphiti.config.json"
    config.write_text(json.dumps({"database": {"backend": "neo4j"}}))
    open_graph_early(["query", "files", "--config", str(config)])
    open_graph_early(["query", "files", "--backend", "neo4j", "--db", str(database)])
    open_graph_early(["query", "files", "--backend", "nosuch", "--db", str(database)])
    open_graph_early(["query", "files", "--config", str(tmp_path / "missing.json"), "--db", str(database)])
    open_graph_early(["query", "files", "--db", str(tmp_path / "missing.falkordb")])
    open_graph_early(["query", "files", "--db", str(config)])  # not a database
    open_graph_early(["query", "--help", "--db", str(database)])
    assert falkordblite._EARLY == {}
    assert keepers_for(database) == []
    assert not (tmp_path / "missing.falkordb").exists()


def test_errors_are_still_the_commands_own(tmp_path: Path, database: Path) -> None:
    missing = cli("query", "files", "--db", str(tmp_path / "missing.falkordb"))
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: no FalkorDB Lite database at")
    # A usage mistake found after the file was opened early: one line, and the server stops.
    bad = cli("query", "errors", "--since", "not-a-date", "--db", str(database))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
    assert servers_left(database) == []
