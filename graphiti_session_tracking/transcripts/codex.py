"""Read an OpenAI Codex CLI session file (a "rollout" JSONL) into the project's Session model.

Codex writes one envelope per line, `{"timestamp", "type", "payload"}`, and says most things twice
(`response_item` for the model's history, `event_msg` for the UI). Content is taken from
`response_item` only; `event_msg` gives the token count. Tool calls get a ToolKind and Claude Code's
input keys (`command`, `file_path`, `old_string`/`new_string`, `todos`), so every extractor reads a
Codex session as it reads a Claude Code one. A Codex file is read whole each time: its records do
not merge across reads, and the file is small next to what the extractors do with it.

Code-mode `exec` scripts (JavaScript calling the tools) are read by codex_code_mode.py. Left as
they are (kind OTHER, arguments kept): MCP tools and any tool of a later version. Inputs are kept
whole (no Spill: Codex lines are not shaped like Claude Code's, and a long Codex input is a patch,
which is the edit itself); result texts keep their head and tail like the Claude Code reader's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

from graphiti_session_tracking.redact import redact_pasted_tokens

from .codex_code_mode import completed_cell, printed_result, read_script, script_output, waits_for
from .codex_patch import patch_inputs
from .fields import object_field as _obj
from .fields import text_field as _str
from .kinds import ToolKind
from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .reader import _decode, _lines, _timestamp
from .spill import head_and_tail

__all__ = ["is_codex_rollout", "read_codex"]

_SNIFF_BYTES = 64 * 1024
# The envelope's `type` comes before its `payload` (a first line can be longer than the sniff).
_META_HEAD = re.compile(rb'\A\s*\{[^{]*"type"\s*:\s*"session_meta"')
# User-role text Codex injects itself; not a request a person typed.
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_aborted>")
_IDE_REQUEST = "## My request for Codex:"
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})
_COMMAND_TOOLS = frozenset({"shell", "shell_command", "exec_command", "container.exec", "local_shell"})
_PATCH_TOOLS = frozenset({"apply_patch", "applypatch"})
_KINDS = {
    "update_plan": ToolKind.TODO,
    "spawn_agent": ToolKind.SUBAGENT,
    "read_file": ToolKind.READ,
    "view_image": ToolKind.READ,
    "list_dir": ToolKind.SEARCH,
    "grep_files": ToolKind.SEARCH,
    "write_stdin": ToolKind.BACKGROUND,
}
# 0.1xx outputs: `Process exited with code N` (exec_command) or `Exit code: N` (shell_command).
_EXIT_HEADER = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$", re.MULTILINE)
_OUTPUT_MARK = re.compile(r"^Output:\n", re.MULTILINE)
# 0.40 plain-text failures: a sandbox denial (with its exit code) and a refusal by the user.
_SANDBOX_EXIT = re.compile(r"\Afailed in sandbox[^\n]*?\bexit code: (-?\d+)")
_REJECTED = re.compile(r"\A\w+(?: \w+)? rejected by user")
# `apply_patch <<'PATCH'` inside a shell script, and the `cd <dir> &&` the model often puts first.
_PATCH_IN_SCRIPT = re.compile(r"\b(?:apply_patch|applypatch)\b[^\n]*<<")
_PATCH_BODY = re.compile(r"^\*\*\* Begin Patch\s*$.*?^\*\*\* End Patch\s*$", re.MULTILINE | re.DOTALL)
_CD_FIRST = re.compile(r"\A\s*cd\s+((?:'[^']*'|\"[^\"]*\"|[^\s;&|])+)\s*&&")


_ENVELOPES = frozenset({"session_meta", "response_item", "compacted", "turn_context", "event_msg"})


def is_codex_rollout(path: Path) -> bool:
    """Whether `path` is a Codex rollout: its first non-empty line is a `session_meta` envelope, or
    (Codex CLI before 0.39) a bare session header (`_legacy_header`)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    first = head.lstrip().split(b"\n", 1)[0]
    if first.startswith(b'{"id"') and b'"type"' not in first:
        try:
            return _legacy_header(json.loads(first))
        except ValueError:
            return False
    if b"session_meta" not in first:  # the usual answer, for a Claude Code transcript: no parsing
        return False
    try:
        record = json.loads(first)
    except ValueError:  # cut at the sniff limit, or not JSON: look at the envelope's head
        return _META_HEAD.match(first) is not None
    return isinstance(record, dict) and record.get("type") == "session_meta"


def read_codex(path: Path) -> Session:
    """The whole session in `path`; bad lines become Problems naming file and line, never errors."""
    session = Session(session_id=path.stem, source_file=str(path))
    builder = _CodexBuilder(session)
    for line_no, offset_after, raw in _lines(path, 0, session):
        record = _decode(raw, session.source_file, line_no, session)
        if record is not None:
            builder.add(_enveloped(record), line_no)
        session.end_offset = offset_after
        session.lines_read += 1
    return session


# The first line of a rollout written before 0.39: the session header with no envelope; every
# later line a bare response item, or a `{"record_type": "state"}` marker.
_LEGACY_HEADER_KEYS = frozenset(
    {"id", "timestamp", "instructions", "git", "cwd", "originator", "cli_version"}
)


def _legacy_header(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
        and set(record) <= _LEGACY_HEADER_KEYS
    )


def _enveloped(record: dict[str, Any]) -> dict[str, Any]:
    """A record of either layout as the envelope the builder reads (a legacy state marker becomes
    a record of its own type: counted, skipped)."""
    if "payload" in record:
        return record
    if "record_type" in record and "type" not in record:
        return {"type": str(record["record_type"])}
    if _legacy_header(record):
        return {"type": "session_meta", "timestamp": record["timestamp"], "payload": record}
    if isinstance(record.get("type"), str) and record["type"] not in _ENVELOPES:
        return {"type": "response_item", "payload": record}
    return record


def _args(raw: Any) -> dict[str, Any] | None:
    """A tool's arguments: an object, or JSON text holding one (None when it is neither)."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _script(command: Any) -> str:
    """A command as one string: the script of `bash -lc <script>`, other argv lists shell-joined."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in _SHELLS and command[1] in ("-lc", "-c"):
            return str(command[2])
        return shlex.join(command)
    return ""


def _output_text(output: Any) -> str:
    """A tool output as text: a string, an `input_text` item, or a list of them."""
    if isinstance(output, str):
        return output
    items = output if isinstance(output, list) else [output]
    return "\n".join(i["text"] for i in items if isinstance(i, dict) and isinstance(i.get("text"), str))


def _answered(call: ToolCall, result: ToolResult) -> ToolResult:
    """A `request_user_input` output (`{"answers": {"<question id>": {"answers": ["<label>"]}}}`)
    with the answers by question text, as Claude Code's AskUserQuestion keeps them."""
    parsed = _args(result.text) if result.text.lstrip().startswith("{") else None
    by_id = _obj(parsed, "answers") if parsed is not None else {}
    answers: dict[str, str] = {}
    for question in _list(call.input.get("questions")):
        given = by_id.get(str(question.get("id", "")))
        picked = given.get("answers") if isinstance(given, dict) else None
        said = (
            [a.strip() for a in picked if isinstance(a, str) and a.strip()]
            if isinstance(picked, list)
            else []
        )
        if isinstance(question.get("question"), str) and said:
            answers[question["question"]] = ", ".join(said)
    if not answers:
        return result
    return ToolResult(result.text, result.is_error, result.timestamp, {"answers": answers})


def _result(payload: dict[str, Any], timestamp: datetime | None) -> ToolResult:
    """A tool's output, with the exit code read from 0.40's JSON or 0.1xx's header (a sandbox denial
    and a refusal fail too); a failed command's text starts `Exit code N` as Claude Code's does (the
    errors extractor reads it)."""
    text = _output_text(payload.get("output"))
    code: int | None = None
    parsed = _args(text) if text.lstrip().startswith("{") else None
    if parsed is not None and isinstance(parsed.get("metadata"), dict) and "output" in parsed:
        text = _output_text(parsed["output"])
        exit_code = parsed["metadata"].get("exit_code")
        code = exit_code if isinstance(exit_code, int) else None
    else:
        mark = _OUTPUT_MARK.search(text)
        header = _EXIT_HEADER.search(text, 0, mark.start() if mark else min(len(text), 1000))
        if header is not None:
            code = int(header.group(1))
            text = text[mark.end() :] if mark else text[header.end() :].lstrip("\n")
        elif sandbox := _SANDBOX_EXIT.match(text):
            code = int(sandbox.group(1))
    failed = (
        (code is not None and code != 0) or payload.get("success") is False or bool(_REJECTED.match(text))
    )
    if code is not None and code != 0:
        text = f"Exit code {code}\n{text}"
    return ToolResult(text=head_and_tail(text), is_error=failed, timestamp=timestamp)


class _CodexBuilder:
    """Folds envelopes into the Session: one assistant Message per model response, calls by call_id."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.seen_meta = False
        self.turn_cwd: str | None = None
        self.current: Message | None = None  # the model response being read
        self.calls: dict[str, list[ToolCall]] = {}  # call_id -> the call, and its patch's files
        self.pending: dict[str, ToolResult] = {}  # outputs read before their call
        # Code mode: each script's or wait's call_id (a wait: the cell it polls), and the script
        # still running in each cell.
        self.scripts: dict[str, str | None] = {}
        self.cells: dict[str, str] = {}
        self.line_no, self.ident = 0, ""  # the record being read: its line, its item's id or `line-N`
        self.ts: datetime | None = None  # and its time

    def problem(self, message: str) -> None:
        self.session.problems.append(Problem(self.session.source_file, self.line_no, message))

    def add(self, record: dict[str, Any], line_no: int) -> None:
        session = self.session
        kind = record.get("type")
        payload = record.get("payload")
        sub = payload.get("type") if isinstance(payload, dict) else None
        name = f"{kind}:{sub}" if isinstance(kind, str) and isinstance(sub, str) else str(kind)
        session.record_counts[name] = session.record_counts.get(name, 0) + 1
        self.line_no = line_no
        self.ts = self._time(record.get("timestamp"))
        if not isinstance(payload, dict):
            if kind in ("session_meta", "response_item", "turn_context"):
                self.problem(f"{kind} without a payload")
            return
        self.ident = _str(payload, "id") or f"line-{line_no}"
        if kind == "session_meta" and not self.seen_meta:
            self._identity(payload)
        elif kind == "turn_context":
            self.current = None  # a new request to the model follows
            if isinstance(payload.get("cwd"), str):
                self.turn_cwd = payload["cwd"]
                session.cwd = session.cwd or payload["cwd"]
        elif kind == "event_msg" and sub == "token_count":
            self._usage(payload)
        elif kind == "response_item":
            self._item(payload, sub)

    def _time(self, raw: Any) -> datetime | None:
        ts = _timestamp(raw)
        if raw is not None and ts is None:
            self.problem("timestamp: not a time")
        if ts is not None:
            session = self.session
            session.started_at = ts if session.started_at is None else min(session.started_at, ts)
            session.ended_at = ts if session.ended_at is None else max(session.ended_at, ts)
        return ts

    def _identity(self, meta: dict[str, Any]) -> None:
        """The first session_meta names the file's session; later ones describe copied history."""
        self.seen_meta = True
        session = self.session
        session.session_id = _str(meta, "id") or session.session_id
        session.cwd = _str(meta, "cwd") or session.cwd
        session.agent = "codex"
        session.version = _str(meta, "cli_version") or session.version
        session.git_branch = _str(_obj(meta, "git"), "branch") or session.git_branch

    def _usage(self, payload: dict[str, Any]) -> None:
        """The session's tokens: the last cumulative total (Codex counts cached input inside input)."""
        total = _obj(_obj(payload, "info"), "total_token_usage")
        counts = {k: v if isinstance(v, int) and v >= 0 else 0 for k, v in total.items()}
        if counts:
            cached = counts.get("cached_input_tokens", 0)
            self.session.usage = TokenUsage(
                input_tokens=max(0, counts.get("input_tokens", 0) - cached),
                output_tokens=counts.get("output_tokens", 0),
                cache_read_input_tokens=cached,
            )

    def _item(self, payload: dict[str, Any], sub: Any) -> None:
        if sub == "message" and payload.get("role") == "user":
            self._user(payload)
        elif sub == "message" and payload.get("role") == "assistant":
            parts = _list(payload.get("content"))
            text = _output_text([c for c in parts if c.get("type") == "output_text"])
            if text.strip():
                message = self._response()
                message.text = f"{message.text}\n{text}".strip()
        elif sub == "reasoning":
            summary = _output_text(_list(payload.get("summary")))
            if summary.strip():
                message = self._response()
                message.thinking = f"{message.thinking}\n{summary}".strip()
        elif sub in ("function_call", "custom_tool_call", "local_shell_call"):
            self._tool_call(payload, sub)
        elif sub == "web_search_call":
            action = _obj(payload, "action")
            found = {k: action[k] for k in ("query", "url", "pattern") if isinstance(action.get(k), str)}
            status = payload.get("status")
            result = ToolResult("", status == "failed", self.ts) if isinstance(status, str) else None
            self._record(self.ident, "web_search", ToolKind.WEB, found, result)
        elif isinstance(sub, str) and sub.endswith("_output") and isinstance(payload.get("call_id"), str):
            self.current = None  # the model answers the output in a new response
            result = _result(payload, self.ts)
            if payload["call_id"] in self.scripts:
                result = self._script_result(payload["call_id"], result)
            calls = self.calls.get(payload["call_id"])
            for call in calls or []:
                call.result = _answered(call, result) if call.kind is ToolKind.QUESTION else result
            if calls is None:
                self.pending[payload["call_id"]] = result

    def _user(self, payload: dict[str, Any]) -> None:
        """A request a person typed; Codex's injected context is dropped, the IDE wrapper unwrapped."""
        self.current = None
        text = _output_text([c for c in _list(payload.get("content")) if c.get("type") == "input_text"])
        if text.lstrip().startswith(_INJECTED):
            return
        if _IDE_REQUEST in text:
            text = text.split(_IDE_REQUEST, 1)[1]
        text = redact_pasted_tokens(text.strip())
        if text:
            self.session.messages.append(Message(self.ident, "user", text, self.ts, self.line_no))

    def _response(self) -> Message:
        """The assistant Message of the model response being read (reasoning, text and calls)."""
        if self.current is None:
            self.current = Message(self.ident, "assistant", "", self.ts, self.line_no)
            self.session.messages.append(self.current)
        return self.current

    def _tool_call(self, payload: dict[str, Any], sub: str) -> None:
        call_id = _str(payload, "call_id") or _str(payload, "id")
        if call_id is None or call_id in self.calls:
            return
        name = _str(payload, "name") or sub
        raw = payload.get("input") if sub == "custom_tool_call" else payload.get("arguments")
        if name == "exec" and sub == "custom_tool_call" and isinstance(raw, str):
            self._code_mode(call_id, raw)
            return
        if sub == "local_shell_call":
            action = _obj(payload, "action")
            name = "local_shell"
            args = {"command": action.get("command"), "workdir": action.get("working_directory")}
        elif name in _PATCH_TOOLS and sub == "custom_tool_call":
            args = {"input": raw}
        else:
            parsed = _args(raw)
            if parsed is None and sub == "function_call":
                self.problem(f"{name}: arguments are not a JSON object")
            args = parsed if parsed is not None else {"input": raw}
        workdir = _str(args, "workdir")
        if name in _COMMAND_TOOLS:
            script = _script(args.get("command", args.get("cmd")))
            escalated = args.get("sandbox_permissions") == "require_escalated" or (
                args.get("with_escalated_permissions") is True
            )
            # run outside the sandbox, with the user's approval: Claude Code's key for it
            self._record(
                call_id,
                name,
                ToolKind.COMMAND,
                {"command": script, **({"dangerouslyDisableSandbox": True} if escalated else {})},
            )
            argv = args.get("command")
            if isinstance(argv, list) and len(argv) == 2 and argv[0] in _PATCH_TOOLS:
                self._patch(call_id, str(argv[1]), workdir)
            elif _PATCH_IN_SCRIPT.search(script):
                cd = _CD_FIRST.match(script)
                where = os.path.join(workdir or "", shlex.split(cd.group(1))[0]) if cd else workdir
                self._patch(call_id, "\n".join(_PATCH_BODY.findall(script)), where)
        elif name in _PATCH_TOOLS:
            self._patch(call_id, _str(args, "input") or _str(args, "patch") or "", workdir)
        elif name == "wait" and (cell := waits_for(args)) is not None:
            self.scripts[call_id] = cell
            self._record(call_id, name, ToolKind.BACKGROUND, args)
        elif name == "request_user_input":  # Plan mode's questions, shaped like Claude Code's
            self._record(call_id, name, ToolKind.QUESTION, args)
        elif name == "update_plan":
            plan = [s for s in _list(args.get("plan")) if isinstance(s.get("step"), str)]
            todos = [{"content": s["step"], "status": s.get("status", "pending")} for s in plan]
            self._record(call_id, name, ToolKind.TODO, {**args, "todos": todos})
        else:
            kind = _KINDS.get(name, ToolKind.OTHER)
            extra: dict[str, Any] = {}
            if kind is ToolKind.READ and isinstance(args.get("file_path", args.get("path")), str):
                extra["file_path"] = args.get("file_path", args.get("path"))
            elif kind is ToolKind.SEARCH:
                folder = args.get("dir_path", args.get("path"))
                extra = {"pattern": args.get("pattern", folder), **({"path": folder} if folder else {})}
            elif kind is ToolKind.SUBAGENT and "prompt" not in args:
                extra["prompt"] = args.get("message", args.get("task", ""))
            self._record(call_id, name, kind, {**args, **extra})

    def _code_mode(self, call_id: str, source: str) -> None:
        """A code-mode script, as the calls it makes (codex_code_mode.py)."""
        script = read_script(source)
        self.scripts[call_id] = None
        if script.commands:
            self._record(call_id, "exec", ToolKind.COMMAND, {"command": "\n".join(script.commands)})
        if script.patches:
            self._patch(call_id, "\n".join(script.patches), script.workdir)
        if not (script.commands or script.patches):
            self._record(call_id, "exec", script.kind, {"input": source})

    def _script_result(self, call_id: str, result: ToolResult) -> ToolResult:
        """A code-mode output without its header; a script that ended other than `completed`
        failed. A `wait` that saw its cell complete gives that output to the script it waited for."""
        text, state = script_output(result.text)
        text, code = printed_result(text)
        failed = result.is_error or state not in (None, "completed", "running") or bool(code)
        finished = ToolResult(text, failed, result.timestamp)
        waited = self.scripts.get(call_id)
        cell = completed_cell(result.text)
        if cell is not None and waited is None:  # a script, not a wait, went on running
            self.cells[cell] = call_id
        if waited is not None and state != "running" and waited in self.cells:
            for call in self.calls.get(self.cells.pop(waited), []):
                call.result = finished
        return finished

    def _patch(self, call_id: str, body: str, workdir: str | None) -> None:
        """One call per file of the patch, `<call_id>#<n>`: an added file is a WRITE; an updated one
        an EDIT (several hunks as `edits`, like MultiEdit); a deleted one an EDIT of "" to "" so
        that it counts as a file the session changed. Relative paths are taken from the call's
        workdir, else the turn's or the session's cwd."""
        base = self.turn_cwd or self.session.cwd
        base = os.path.join(base, workdir) if base and workdir else workdir or base
        for n, (kind, tool_input) in enumerate(patch_inputs(body, base), start=1):
            self._record(f"{call_id}#{n}", "apply_patch", kind, tool_input, key=call_id)

    def _record(
        self,
        call_id: str,
        name: str,
        kind: ToolKind,
        tool_input: dict[str, Any],
        result: ToolResult | None = None,
        key: str | None = None,
    ) -> None:
        """Add a call to the current response and to the session; `key` is the call_id its output
        will name (a patch's files share their call's output)."""
        key = key or call_id
        call = ToolCall(call_id, name, tool_input, self.ts, self.line_no, kind=kind)
        call.result = result or self.pending.get(key)
        self.calls.setdefault(key, []).append(call)
        self._response().tool_calls.append(call)
        self.session.tool_calls.append(call)


def _list(value: Any) -> list[dict[str, Any]]:
    """The objects of a list field (content parts, summary parts, plan steps)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
