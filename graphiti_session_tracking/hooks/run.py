"""What the hooks do when Claude Code runs them (the event's JSON on stdin).

- SessionEnd / PreCompact: start the ingest of the session's project folder in a detached process
  and return at once. The hook never blocks and never fails the user's session; the background
  run ingests what is new (the ledger skips the rest, so a run that failed earlier — the backend
  was down — is caught up by the next), writes the project's recap for the next SessionStart, and
  logs one JSON line to `~/.graphiti/hooks.log`.
- SessionStart: print the project's latest recap (kept by the background run) for Claude Code to
  add to the context, at most `MAX_CHARS`, saying what was left out. Reading one file: well under
  a second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from graphiti_session_tracking.config import GRAPHITI_HOME, ConfigError, load_config, private_folder
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.recap.files import project_group, recap_file

LOG = GRAPHITI_HOME / "hooks.log"
MAX_CHARS = 8_000  # what SessionStart adds to the context at most; what is cut is named instead


def read_event(stream: TextIO) -> dict[str, Any]:
    """The hook's input; anything unreadable is an empty event (the hook must not fail)."""
    try:
        data = json.loads(stream.read() or "{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def log(entry: dict[str, Any]) -> None:
    try:
        private_folder(LOG.parent)
        fd = os.open(LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **entry}, default=str) + "\n"
            )
    except OSError:
        pass  # a log that cannot be written must not fail the user's session


def recent_log(lines: int = 10) -> list[dict[str, Any]]:
    try:
        tail = LOG.read_text("utf-8").splitlines()[-lines:]
    except OSError:
        return []
    out = []
    for line in tail:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def start_catch_up(event: dict[str, Any], name: str) -> None:
    """SessionEnd / PreCompact: the ingest, detached from the hook (its own session, no pipes)."""
    transcript = event.get("transcript_path")
    if not transcript:
        log({"event": name, "skipped": "no transcript_path in the hook's input"})
        return
    command = [
        sys.executable,
        "-m",
        "graphiti_session_tracking",
        "hook",
        "catch-up",
        "--transcript",
        str(transcript),
    ]
    if event.get("cwd"):
        command += ["--cwd", str(event["cwd"])]
    if event.get("session_id"):
        command += ["--session", str(event["session_id"])]
    try:
        private_folder(LOG.parent)
        with open(os.devnull, "rb") as nothing, open(LOG, "ab") as out:
            subprocess.Popen(
                command,
                stdin=nothing,
                stdout=out,
                stderr=out,
                start_new_session=True,
                cwd=event.get("cwd") if event.get("cwd") and os.path.isdir(event["cwd"]) else None,
            )
    except OSError as exc:
        log({"event": name, "error": f"cannot start the ingest: {exc}"})


async def catch_up(
    transcript: Path, cwd: Path | None, session: str | None = None, event: str = "catch-up"
) -> dict[str, Any]:
    """Ingest the transcript's folder (what is new only), then keep the recap of the session that
    ended (else of the project's latest)."""
    from graphiti_session_tracking.pipeline.compose import build_pipeline
    from graphiti_session_tracking.pipeline.sources import discover_sources
    from graphiti_session_tracking.recap.build import RecapError, build_recap, save

    entry: dict[str, Any] = {"event": event, "transcript": str(transcript)}
    try:
        pipeline = build_pipeline(load_config())
    except ConfigError as exc:
        entry["error"] = str(exc)
        return entry
    if not pipeline.config.session_tracking.enabled:
        entry["skipped"] = "session_tracking.enabled is false"
        return entry
    started = time.monotonic()
    try:
        folder = transcript.parent if transcript.parent.is_dir() else transcript
        with pipeline.ledger() as ledger:
            report = await pipeline.ingest(discover_sources([folder]), ledger=ledger)
        entry.update(ingested=report.ingested, unchanged=report.skipped, failed=len(report.failed))
        if report.failed:
            entry["failures"] = report.failed[:5]
    except Exception as exc:  # the backend down, a disk full: logged, caught up by the next run
        entry["error"] = f"{type(exc).__name__}: {exc}"
        entry["seconds"] = round(time.monotonic() - started, 2)
        return entry
    if pipeline.store_in_graph:
        try:
            if session is not None:
                recap = await build_recap(pipeline, session=session)
            else:
                recap = await build_recap(pipeline, project=cwd or Path.cwd())
            entry["recap"] = str(save(recap))
        except RecapError as exc:
            entry["recap"] = str(exc)
        except Exception as exc:
            entry["recap_error"] = f"{type(exc).__name__}: {exc}"
    entry["seconds"] = round(time.monotonic() - started, 2)
    return entry


def session_start_text(event: dict[str, Any], max_chars: int = MAX_CHARS) -> str:
    """The kept recap of the event's project, cut at whole sections to `max_chars`."""
    try:
        config = load_config()
    except ConfigError:
        return ""
    if not config.session_tracking.enabled:
        return ""
    fixed = GroupId(config.group_id) if config.group_id else None
    project = Path(str(event.get("cwd") or Path.cwd()))
    try:
        text = recap_file(project_group(fixed, project)).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    return fit(text, max_chars)


def fit(text: str, max_chars: int) -> str:
    """`text` if it fits; else its first sections that fit and a line naming the rest."""
    if len(text) <= max_chars:
        return text
    sections = text.split("\n## ")
    kept = [sections[0][: max_chars - 200]]
    left: list[str] = []
    for section in sections[1:]:
        title = section.split("\n", 1)[0]
        if left or len("\n## ".join([*kept, section])) > max_chars - 200:
            left.append(title)
        else:
            kept.append(section)
    note = f"\n\n_Left out to stay within {max_chars} characters: {', '.join(left) or 'the rest of the heading'}; "
    return "\n## ".join(kept).rstrip() + note + "run `graphiti-sessions recap` for all._\n"
