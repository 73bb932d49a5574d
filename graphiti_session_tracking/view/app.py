"""The web view as a Starlette app: read-only pages over the session graph, behind a token.

The token travels once, in the URL the command prints; the first request that carries it gets
an HttpOnly, SameSite=Strict cookie and is sent on to the same page without it (so it leaves no
trace in history or a Referer). Any request with neither gets 403: another user of this machine
can reach 127.0.0.1 too, and a web page in the browser could try to. Pages run no JavaScript.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from graphiti_session_tracking.graph.backends import Backend, open_backend
from graphiti_session_tracking.group_id import GroupId, InvalidGroupIdError
from graphiti_session_tracking.recap.build import RecapError, build_recap

from . import data
from .chart import activity_chart

if TYPE_CHECKING:
    from graphiti_session_tracking.pipeline.compose import Pipeline

# The page's own stylesheet and inline SVG images only: no script, no frame, no form elsewhere.
_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)


class _Graph:
    """The backend, opened once and kept open (opened again if its server went away)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self._opened: AbstractAsyncContextManager[Backend] | None = None
        self._backend: Backend | None = None
        self._lock = asyncio.Lock()

    async def backend(self) -> Backend:
        async with self._lock:
            if self._backend is not None and self._backend.why_lost() is not None:
                await self.close()
            if self._backend is None:
                self._opened = open_backend(self.pipeline.graph, writable=False)
                self._backend = await self._opened.__aenter__()
            return self._backend

    async def close(self) -> None:
        if self._opened is not None:
            opened, self._opened, self._backend = self._opened, None, None
            with contextlib.suppress(Exception):
                await opened.__aexit__(None, None, None)


class _TokenGate(BaseHTTPMiddleware):
    """403 without the token (as `?token=` once, then as the cookie it sets)."""

    def __init__(self, app: Any, token: str, cookie: str) -> None:
        super().__init__(app)
        self.token, self.cookie = token, cookie

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        given = request.query_params.get("token")
        if given is not None and secrets.compare_digest(given, self.token):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
        elif secrets.compare_digest(request.cookies.get(self.cookie, ""), self.token):
            response = await call_next(request)
        else:
            response = PlainTextResponse(
                "403: open the URL graphiti-sessions view printed (it carries the token)", status_code=403
            )
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"
        return response


def _templates() -> Environment:
    """Jinja with autoescape on for every template: each value from the graph is escaped."""
    env = Environment(
        loader=PackageLoader("graphiti_session_tracking.view", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["short"] = lambda value: str(value or "")[:8]
    env.filters["when"] = lambda value: str(value or "")[:16].replace("T", " ")
    env.filters["minutes"] = _minutes
    return env


def _minutes(value: Any) -> str:
    if value is None:
        return ""
    total = round(float(value))
    return f"{total // 60} h {total % 60:02d} min" if total >= 60 else f"{total} min"


def _group(request: Request) -> GroupId:
    try:
        return GroupId(request.path_params["group"])
    except InvalidGroupIdError as exc:
        raise data.NotFound(str(exc)) from exc


def build_app(
    pipeline: Pipeline, token: str, *, port: int, on_ready: Callable[[], None] | None = None
) -> Starlette:
    """The web view of one graph; `on_ready` runs once the graph is open (it opens the browser)."""
    graph = _Graph(pipeline)
    env = _templates()
    recaps: dict[tuple[str, str], str] = {}  # (group, latest session): its recap, made once

    def page(name: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        values.setdefault("query", request.query_params.get("q", ""))
        values.setdefault("group", request.path_params.get("group") or request.query_params.get("group"))
        return HTMLResponse(env.get_template(name).render(**values), status_code=status)

    def handled(
        handler: Callable[[Request, Backend], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request, await graph.backend())
            except data.NotFound as exc:
                return page("missing.html", request, status=404, message=str(exc))

        return endpoint

    async def home(request: Request, backend: Backend) -> Response:
        return page("projects.html", request, projects=await data.projects(backend))

    async def project(request: Request, backend: Backend) -> Response:
        number = request.query_params.get("page", "1")
        got = await data.timeline(backend, _group(request), int(number) if number.isdigit() else 1)
        return page("project.html", request, timeline=got)

    async def session(request: Request, backend: Backend) -> Response:
        group = _group(request)
        got = await data.session_page(backend, group, request.path_params["session"])
        recap = await _recap(backend, group, got.latest_session)
        return page("session.html", request, s=got, chart=activity_chart(got.activity), recap=recap)

    async def _recap(backend: Backend, group: str, latest: str | None) -> str:
        if latest is None:
            return ""
        if (group, latest) not in recaps:
            try:
                made = await build_recap(pipeline, session=latest, backend=backend)
                recaps[(group, latest)] = made.markdown
            except RecapError as exc:
                recaps[(group, latest)] = str(exc)
        return recaps[(group, latest)]

    async def file(request: Request, backend: Backend) -> Response:
        path = request.query_params.get("path", "")
        if not path:
            raise data.NotFound("which file? (?path=…)")
        return page("file.html", request, f=await data.file_page(backend, _group(request), path))

    async def search(request: Request, backend: Backend) -> Response:
        text = request.query_params.get("q", "").strip()
        raw_group = request.query_params.get("group") or None
        try:
            group = GroupId(raw_group) if raw_group else None
        except InvalidGroupIdError as exc:
            raise data.NotFound(str(exc)) from exc
        hits = (
            await data.search(backend, text, group, pipeline.embedder, pipeline.local_embedder)
            if text
            else []
        )
        return page("search.html", request, hits=hits, text=text)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await graph.backend()  # a graph that cannot be opened stops the command before any page
        if on_ready is not None:
            await asyncio.to_thread(on_ready)
        try:
            yield
        finally:
            await graph.close()

    hosts = ["127.0.0.1", "localhost"]  # a DNS-rebound name is refused before the token is asked
    return Starlette(
        routes=[
            Route("/", handled(home)),
            Route("/project/{group}", handled(project)),
            Route("/session/{group}/{session}", handled(session)),
            Route("/file/{group}", handled(file)),
            Route("/search", handled(search)),
            Mount("/static", StaticFiles(packages=[("graphiti_session_tracking.view", "static")])),
        ],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
            Middleware(_TokenGate, token=token, cookie=f"graphiti_view_{port}"),
        ],
        lifespan=lifespan,
    )
