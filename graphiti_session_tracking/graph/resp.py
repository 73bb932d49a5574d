"""A lean client of the embedded server's Unix socket: RESP commands, replies parsed by hiredis.

Why not redis-py here: `import redis` (8.x) loads its asyncio, cluster, sentinel, parser and
observability modules whatever is used, 85–120 ms on these machines: more than a warm query takes
the database. A question at the prompt, the MCP server's reads and a process's presence on the
file's server need a handful of commands (PING, CONFIG, INFO, BGSAVE, GRAPH.RO_QUERY, GRAPH.LIST),
so they go through this module; graphiti-core's FalkorDriver (writes, search) keeps falkordb-py.

FalkorDB's compact replies are decoded here for what our queries return (scalars, lists, maps);
a node, edge, path, point or temporal value is refused by name: the queries return properties.
Parameters travel as FalkorDB's `CYPHER name=value` header, quoted as falkordb-py quotes them.
"""

from __future__ import annotations

import math
import socket
from typing import TYPE_CHECKING, Any

import hiredis

if TYPE_CHECKING:
    import asyncio

_READ_SIZE = 1 << 20


class ReplyError(Exception):
    """The server's error reply (a bad query, a missing graph, a refused command)."""


class LoadingError(ReplyError):
    """The server is still loading its dataset: ask again shortly."""


def _checked(reply: Any) -> Any:
    if isinstance(reply, ReplyError):
        if str(reply).startswith("LOADING"):
            raise LoadingError(str(reply))
        raise reply
    return reply


def _parser() -> hiredis.Reader:
    return hiredis.Reader(replyError=ReplyError, encoding="utf-8")


class Connection:
    """One blocking connection with no timeout (a save of a large file takes what it takes): a
    process's presence on the server (the keeper counts it as a user) and its housekeeping. It connects on first use and again after a failure, as redis-py does."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._sock: socket.socket | None = None
        self._parser = _parser()

    def call(self, *args: str | int | float) -> Any:
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.connect(self.path)
            self._sock.sendall(hiredis.pack_command(args))  # type: ignore[arg-type]  # its stub: a 1-tuple
            while (reply := self._parser.gets()) is False:
                data = self._sock.recv(_READ_SIZE)
                if not data:
                    raise ConnectionError(f"the server on {self.path} closed the connection")
                self._parser.feed(data)
        except OSError:
            self.close()  # half a reply must not be read as the next command's
            raise
        return _checked(reply)

    def ping(self) -> None:
        self.call("PING")

    def config_get(self, name: str) -> dict[str, str]:
        reply = self.call("CONFIG", "GET", name)
        return dict(zip(reply[::2], reply[1::2], strict=True))

    def config_set(self, name: str, value: str) -> None:
        self.call("CONFIG", "SET", name, value)

    def info(self, section: str) -> dict[str, Any]:
        """INFO's `key:value` lines, whole numbers as ints (as redis-py gives them)."""
        fields: dict[str, Any] = {}
        for line in str(self.call("INFO", section)).splitlines():
            key, colon, value = line.partition(":")
            if colon and not line.startswith("#"):
                fields[key] = int(value) if value.lstrip("-").isdigit() else value
        return fields

    def bgsave(self) -> None:
        self.call("BGSAVE")

    def bgrewriteaof(self) -> None:
        self.call("BGREWRITEAOF")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._parser = _parser()


class _AsyncConnection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.parser = reader, writer, _parser()

    async def call(self, args: tuple[str, ...]) -> Any:
        self.writer.write(hiredis.pack_command(args))  # type: ignore[arg-type]
        await self.writer.drain()
        while (reply := self.parser.gets()) is False:
            data = await self.reader.read(_READ_SIZE)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.parser.feed(data)
        return reply


class GraphReader:
    """Read-only FalkorDB queries of one process on the server's socket. At most `max_connections`
    at once: more calls wait for a free one, so an agent's burst of calls never meets the server's
    connection limit. A statement that has not answered after `timeout` seconds fails."""

    def __init__(self, path: str, *, max_connections: int, timeout: float) -> None:
        import asyncio  # here: the keeper, which speaks only through `Connection`, starts without it

        self.path, self.timeout = path, timeout
        self._free: list[_AsyncConnection] = []
        self._slots = asyncio.Semaphore(max_connections)

    async def _call(self, *args: str) -> Any:
        import asyncio

        async with self._slots:
            connection = self._free.pop() if self._free else None
            try:
                if connection is None:
                    connection = await self._open()
                async with asyncio.timeout(self.timeout):
                    reply = await connection.call(args)
            except BaseException:
                if connection is not None:  # a reply half read: the connection is not reused
                    connection.writer.close()
                raise
            self._free.append(connection)
        return _checked(reply)

    async def _open(self) -> _AsyncConnection:
        import asyncio

        try:
            return _AsyncConnection(*await asyncio.open_unix_connection(self.path))
        except OSError as exc:  # a socket file left by a killed server, or none: the server is gone
            raise ConnectionError(f"cannot reach the server on {self.path}: {exc.strerror or exc}") from exc

    async def ro_query(
        self, graph: str, cypher: str, params: dict[str, Any]
    ) -> tuple[list[str], list[list[Any]]]:
        """Column names and rows of a read-only query on `graph`."""
        reply = await self._call("GRAPH.RO_QUERY", graph, params_header(params) + cypher, "--compact")
        if isinstance(reply[-1], ReplyError):  # an error met while running: the reply's last item
            raise reply[-1]
        if len(reply) == 1:  # statistics only: the query returns nothing
            return [], []
        header, rows = reply[0], reply[1]
        return [name for _, name in header], [[decode(cell) for cell in row] for row in rows]

    async def list_graphs(self) -> list[str]:
        return list(await self._call("GRAPH.LIST"))

    async def close(self) -> None:
        free, self._free = self._free, []
        for connection in free:
            connection.writer.close()


def params_header(params: dict[str, Any]) -> str:
    """`CYPHER a=1 b="x" ` before a query: FalkorDB's way of passing parameters."""
    if not params:
        return ""
    return "CYPHER " + "".join(f"{_name(key)}={literal(value)} " for key, value in params.items())


def _name(key: str) -> str:
    if not key or "`" in key:
        raise ValueError(f"invalid Cypher parameter or key name {key!r}")
    return f"`{key}`"


def literal(value: Any) -> str:
    """A Python value as a Cypher literal; strings quoted with `\\` and `"` escaped."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no Cypher literal")
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_name(str(k))}:{literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"a query parameter of type {type(value).__name__} has no Cypher literal")


_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6
_MAP, _VECTOR = 10, 12


def decode(cell: list[Any]) -> Any:
    """One value of a compact reply: `[type, value]`."""
    kind, raw = cell
    if kind == _NULL:
        return None
    if kind == _STRING:
        return raw
    if kind == _INTEGER:
        return int(raw)
    if kind == _BOOLEAN:
        return raw == "true"
    if kind == _DOUBLE:
        return float(raw)
    if kind == _ARRAY:
        return [decode(item) for item in raw]
    if kind == _MAP:
        return {raw[i]: decode(raw[i + 1]) for i in range(0, len(raw), 2)}
    if kind == _VECTOR:
        return [float(item) for item in raw]
    raise ValueError(
        f"a FalkorDB value of type {kind} (a node, edge, path, point or temporal value) "
        "is not read here: return its properties"
    )
