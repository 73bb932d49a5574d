"""Build, start and stop the real Neo4j 5.26 test server (tests/support/neo4j-launcher).

Docker does not run on the test machines, so the suite embeds the real Neo4j engine in a small
Java program taken from Maven Central. The build is cached: Maven keeps the jars in ~/.m2, and
the compiled launcher is rebuilt only when its sources change.

Usable as a script too:  python tests/support/neo4j_server.py build|start
(`start` prints the URI, serves until Ctrl-C).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

LAUNCHER_DIR = Path(__file__).resolve().parent / "neo4j-launcher"
TARGET_DIR = LAUNCHER_DIR / "target"
STAMP = TARGET_DIR / "build.stamp"
MAIN_CLASS = "graphitisessions.testbed.Neo4jTestServer"
TEST_USER = "neo4j"
TEST_PASSWORD = "graphiti-sessions-test"


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted([LAUNCHER_DIR / "pom.xml", *LAUNCHER_DIR.glob("src/**/*.java")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build() -> None:
    """Compile the launcher and copy its runtime classpath, unless already built from these sources."""
    digest = _sources_digest()
    if STAMP.exists() and STAMP.read_text() == digest and (TARGET_DIR / "lib").is_dir():
        return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("Maven (mvn) is needed to build the Neo4j test server: apt-get install maven")
    proc = subprocess.run(
        [mvn, "-q", "-B", "package", "-DskipTests"],
        cwd=LAUNCHER_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"building the Neo4j test server failed:\n{proc.stdout}\n{proc.stderr}")
    STAMP.write_text(digest)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Neo4jTestServer:
    """A running launcher process; `stop()` (or closing its stdin) shuts Neo4j down."""

    process: subprocess.Popen[str]
    port: int
    home: Path
    user: str = TEST_USER
    password: str = TEST_PASSWORD
    log: list[str] = field(default_factory=list)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """A crash: SIGKILL, no shutdown; the data folder stays for a restart."""
        self.process.kill()
        self.process.wait()

    def stop(self, keep_home: bool = False) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not keep_home:
            shutil.rmtree(self.home, ignore_errors=True)


def start(timeout: float = 180.0, home: Path | None = None, port: int | None = None) -> Neo4jTestServer:
    """Build if needed, start Neo4j on a free loopback port and wait until Bolt answers.

    With `home` and `port` of a stopped or killed server, the same database comes back."""
    build()
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("Java 17 is needed to run the Neo4j test server")
    reused = home is not None  # a restart: never delete the caller's database
    home = home or Path(tempfile.mkdtemp(prefix="graphiti-sessions-neo4j-"))
    port = port or _free_port()
    classpath = os.pathsep.join([str(TARGET_DIR / "classes"), str(TARGET_DIR / "lib" / "*")])
    process = subprocess.Popen(
        [java, "-Xms256m", "-Xmx1g", "-cp", classpath, MAIN_CLASS, str(home), str(port), TEST_PASSWORD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    server = Neo4jTestServer(process=process, port=port, home=home)
    ready = threading.Event()

    def drain() -> None:
        # Read its output all along: the wait below stays bounded, and a chatty server never
        # blocks on a full pipe.
        for line in process.stdout or []:
            server.log.append(line)
            if line.startswith("READY "):
                ready.set()

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not ready.wait(0.2):
        if process.poll() is not None:
            server.stop(keep_home=reused)
            raise RuntimeError("Neo4j test server exited during start:\n" + "".join(server.log))
        if time.monotonic() > deadline:
            server.process.kill()
            server.stop(keep_home=reused)
            raise RuntimeError("Neo4j test server did not start in time:\n" + "".join(server.log))
    _wait_for_bolt(port, deadline)
    return server


def _wait_for_bolt(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"Neo4j Bolt port {port} did not answer in time")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "build":
        build()
        print(f"built {TARGET_DIR}")
    elif command == "start":
        srv = start()
        print(f"NEO4J_URI={srv.uri} NEO4J_USER={srv.user} NEO4J_PASSWORD={srv.password}", flush=True)
        try:
            srv.process.wait()
        except KeyboardInterrupt:
            pass
        finally:
            srv.stop()
    else:
        sys.exit("usage: neo4j_server.py build|start")
