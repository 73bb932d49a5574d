"""`graphiti-sessions hook`: install the Claude Code hooks, and what they run."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from graphiti_session_tracking.hooks.settings import HANDLERS, HOSTS, SettingsError, installed, settings_path

from .app import main
from .shell import UsageFailure

AGENTS = [*sorted(HOSTS), "codex"]


def _codex(scope: str) -> Any:
    """Codex CLI's hook module; Codex has one config.toml per user, so no project scope."""
    from graphiti_session_tracking.hooks import codex

    if scope != "user":
        raise UsageFailure("Codex CLI reads one config.toml per user: use --agent codex without --project")
    return codex


scope_options = [
    click.option(
        "--user", "scope", flag_value="user", default=True, help="~/.claude/settings.json (default)."
    ),
    click.option("--project", "scope", flag_value="project", help="./.claude/settings.json of this project."),
    click.option(
        "--agent",
        type=click.Choice(AGENTS),
        default="claude-code",
        help="Whose settings: Claude Code's (default), Gemini CLI's (~/.gemini/settings.json) or "
        "Codex CLI's (its notify program in ~/.codex/config.toml; user scope only).",
    ),
]


def _scoped[F: Callable[..., Any]](func: F) -> F:
    for option in reversed(scope_options):
        func = option(func)
    return func


@main.group()
def hook() -> None:
    """Claude Code (or Gemini CLI) hooks: ingest each session as it ends, start each one with the
    project's recap."""


@hook.command()
@_scoped
@click.option("--pre-compact", is_flag=True, help="Also ingest before Claude Code compacts a conversation.")
def install(scope: str, agent: str, pre_compact: bool) -> None:
    """Add the SessionEnd (ingest, detached) and SessionStart (recap) hooks to Claude Code's
    settings.json (or Gemini CLI's), beside any others; idempotent; the previous file is kept as
    *.graphiti-sessions.bak.

    \b
    Example:
      graphiti-sessions hook install                     # for every project of this user
      graphiti-sessions hook install --project           # this project only
      graphiti-sessions hook install --agent gemini-cli  # Gemini CLI's ~/.gemini/settings.json
    """
    from graphiti_session_tracking.hooks.settings import install as add

    if agent == "codex":
        codex = _codex(scope)
        path, change = codex.config_path(), codex.install
    else:
        path = settings_path(scope, agent=agent)  # type: ignore[arg-type]
        start, end, compact = HOSTS[agent].events
        events = [start, end, *([compact] if pre_compact else [])]

        def change(path: Path) -> list[str]:
            return add(path, events, agent)

    changed = _applied(change, path)
    click.echo(f"{path}: " + (f"added {', '.join(changed)}" if changed else "already installed"))


@hook.command()
@_scoped
def uninstall(scope: str, agent: str) -> None:
    """Remove our hooks (only ours) from Claude Code's (or Gemini CLI's) settings.json."""
    from graphiti_session_tracking.hooks.settings import uninstall as remove

    if agent == "codex":
        codex = _codex(scope)
        path, change = codex.config_path(), codex.uninstall
    else:
        path, change = settings_path(scope, agent=agent), remove  # type: ignore[arg-type]
    removed = _applied(change, path)
    click.echo(f"{path}: " + (f"removed {', '.join(removed)}" if removed else "none of ours installed"))


def _applied(change: Callable[[Path], list[str]], path: Path) -> list[str]:
    """What `change` changed in the settings file `path`; a file it cannot use is a usage error."""
    try:
        return change(path)
    except SettingsError as exc:
        raise UsageFailure(str(exc)) from exc


@hook.command()
@click.option("--json", "as_json", is_flag=True)
def status(as_json: bool) -> None:
    """Where the hooks are installed, and what their last runs did (~/.graphiti/hooks.log)."""
    from graphiti_session_tracking.hooks import codex
    from graphiti_session_tracking.hooks.run import LOG, recent_log

    report: dict[str, object] = {}
    places = [(agent, scope) for agent in sorted(HOSTS) for scope in ("user", "project")]
    for agent, scope in places:
        path = settings_path(scope, agent=agent)  # type: ignore[arg-type]
        key = scope if agent == "claude-code" else f"{agent} {scope}"
        try:
            report[key] = {"settings": str(path), "hooks": installed(path)}
        except SettingsError as exc:
            report[key] = {"settings": str(path), "error": str(exc)}
    try:
        notify = {"notify": "installed"} if codex.installed(codex.config_path()) else {}
        report["codex"] = {"settings": str(codex.config_path()), "hooks": notify}
    except SettingsError as exc:
        report["codex"] = {"settings": str(codex.config_path()), "error": str(exc)}
    report["log"] = str(LOG)
    report["recent"] = recent_log()
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
        return
    for key in [scope if agent == "claude-code" else f"{agent} {scope}" for agent, scope in places] + [
        "codex"
    ]:
        entry = report[key]
        assert isinstance(entry, dict)
        hooks = entry.get("hooks")
        state = entry.get("error") or (", ".join(sorted(hooks)) if hooks else "not installed")
        click.echo(f"{key}: {entry['settings']}: {state}")
    click.echo(f"log: {LOG}")
    for line in report["recent"]:  # type: ignore[attr-defined]
        click.echo("  " + json.dumps(line, default=str))


def _event_command(name: str) -> None:
    @hook.command(name, hidden=True)
    @click.option("--agent", type=click.Choice(sorted(HOSTS)), default="claude-code")
    def handler(agent: str) -> None:
        from graphiti_session_tracking.hooks import run

        event = run.read_event(sys.stdin)
        if name == "session-start":
            text = run.session_start_text(event)
            if agent == "gemini-cli":  # Gemini CLI reads JSON only; the context goes in additionalContext
                click.echo(json.dumps({"hookSpecificOutput": {"additionalContext": text}} if text else {}))
            elif text:
                click.echo(text, nl=False)
        else:
            run.start_catch_up(event, name, agent)

    handler.__doc__ = f"Run by the agent ({name}); the event's JSON on stdin."


for _name in HANDLERS:
    _event_command(_name)


@hook.command("codex-notify", hidden=True, context_settings={"ignore_unknown_options": True})
@click.argument("notification", nargs=-1)
def codex_notify(notification: tuple[str, ...]) -> None:
    """Run by Codex CLI after each agent turn (its `notify` program), the event as JSON in the last
    argument: the session's rollout is ingested in a detached process; never fails Codex."""
    from graphiti_session_tracking.hooks import codex, run

    event = codex.read_notification(list(notification))
    if event.get("type") != "agent-turn-complete":
        return
    rollout = codex.rollout_of(event)
    if rollout is None:
        run.log({"event": "codex-notify", "skipped": "no rollout file of that thread"})
        return
    run.start_catch_up({"transcript_path": str(rollout), "cwd": event.get("cwd")}, "codex-notify", "codex")


@hook.command("catch-up", hidden=True)
@click.option("--transcript", required=True)
@click.option("--cwd", default=None)
@click.option("--session", default=None)
@click.option("--agent", type=click.Choice(AGENTS), default="claude-code")
def catch_up(transcript: str, cwd: str | None, session: str | None, agent: str) -> None:
    """The detached ingest a SessionEnd hook starts (logs to ~/.graphiti/hooks.log). The paths
    are checked as the hook checks them: a transcript outside Claude Code's projects folder is
    logged and ignored (exit 0). Whatever fails is one masked log line, not a raw traceback."""
    import asyncio

    from graphiti_session_tracking.hooks import run

    try:
        entry = asyncio.run(run.catch_up(transcript, cwd, session, agent=agent))
    except Exception as exc:
        entry = {"event": "catch-up", "transcript": transcript, "error": f"{type(exc).__name__}: {exc}"}
    run.log(entry)
