"""The upstream Graphiti MCP server, built from the package index, for the test that runs it over
stdio against our graph. It lives in its own virtualenv: its graphiti-core fork
(`graphiti-core-varming`) installs the same `graphiti_core` package as ours, so the two cannot
share an environment. Built once (about 20 s) into ~/.cache/graphiti-sessions/, rebuilt when the
pinned version changes.

Usable as a script:  python tests/support/graphiti_mcp_server.py build
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = "graphiti-mcp-varming==1.0.6"  # the upstream server's layout and calls, as published
EXTRA = ["httpx", "mcp>=1.21,<2"]  # undeclared by its graphiti-core; it is v1 MCP SDK code
# Outside the checkout (no tool scans it), shared by clones: ~/.cache/graphiti-sessions/.
VENV = Path.home() / ".cache" / "graphiti-sessions" / "graphiti-mcp-server-venv"
STAMP = VENV / "installed.txt"
COMMAND = VENV / "bin" / "graphiti-mcp-varming"


def build() -> Path:
    """The server's command, installed if it is not yet (Python 3.12, as ours)."""
    if STAMP.is_file() and STAMP.read_text().split() == [PACKAGE, *EXTRA] and COMMAND.exists():
        return COMMAND
    if not (VENV / "bin" / "python").exists():
        VENV.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", PACKAGE, *EXTRA], check=True
    )
    STAMP.write_text(" ".join([PACKAGE, *EXTRA]) + "\n")
    return COMMAND


if __name__ == "__main__":
    if sys.argv[1:] != ["build"]:
        sys.exit("usage: graphiti_mcp_server.py build")
    print(build())
