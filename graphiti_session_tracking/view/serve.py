"""Serving the web view: a socket on 127.0.0.1 (a free port unless one is asked for), a fresh
token, uvicorn, and the browser opened on the page once the graph is open."""

from __future__ import annotations

import secrets
import socket
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

import uvicorn

from .app import build_app

if TYPE_CHECKING:
    from graphiti_session_tracking.pipeline.compose import Pipeline

HOST = "127.0.0.1"  # never another interface: the graph names every file and decision


def listen(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1; port 0: one the system finds free."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    pipeline: Pipeline,
    sock: socket.socket,
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    token: str | None = None,
) -> None:
    """Serve until Ctrl-C; `announce` gets the URL (with its token) before anything else."""
    port = int(sock.getsockname()[1])
    token = token or secrets.token_urlsafe(32)
    url = f"http://{HOST}:{port}/?token={token}"
    announce(url)
    app = build_app(pipeline, token, port=port, on_ready=(lambda: _open(url)) if open_browser else None)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def _open(url: str) -> None:
    """The browser, if this machine has one; without one, the printed URL is the way in."""
    webbrowser.open(url, new=2)
