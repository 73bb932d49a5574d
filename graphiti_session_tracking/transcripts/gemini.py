"""Read a Gemini CLI chat file into the project's Session model.

Its two containers (one JSON document until v0.38, an append-only JSONL since) are folded into
message records by gemini_files.py, as the CLI loads them. Tool calls get a ToolKind and Claude
Code's input keys,
so every extractor reads a Gemini session as it reads a Claude Code one. A shell command's exit
status is only in its output text (`Exit Code: N`, its `status` saying success): a non-zero one
fails the call, its text starting `Exit code N` as Claude Code's does. Files are read whole.
"""

from __future__ import annotations

import hashlib
import json
import ntpath
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from graphiti_session_tracking.redact import redact_pasted_tokens

from .fields import text_field as _str
from .gemini_files import Records, fold_chat, is_gemini_chat
from .kinds import ToolKind
from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .reader import _timestamp
from .spill import head_and_tail

__all__ = ["GEMINI_TOOL_KINDS", "is_gemini_chat", "read_gemini"]

# Gemini CLI's tool names (and older names) by what they do; any other tool (MCP, memory, topic,
# skills, a later version's) is OTHER with its arguments kept.
GEMINI_TOOL_KINDS: dict[str, ToolKind] = {
    name: kind
    for kind, names in (
        (ToolKind.COMMAND, "run_shell_command"),
        (ToolKind.WRITE, "write_file"),
        (ToolKind.EDIT, "replace edit smart_edit"),
        (ToolKind.READ, "read_file read_many_files"),
        (ToolKind.SEARCH, "list_directory glob search_file_content grep_search grep list_mcp_resources"),
        (ToolKind.WEB, "web_fetch google_web_search"),
        (ToolKind.TODO, "write_todos"),
        (ToolKind.QUESTION, "ask_user"),
        (ToolKind.PLAN, "exit_plan_mode"),
        (ToolKind.SUBAGENT, "invoke_agent codebase_investigator"),
        (ToolKind.OTHER, "save_memory update_topic"),
    )
    for name in names.split()
}

# User-role text the CLI injects itself (its environment context); not a request a person typed.
_INJECTED = ("<session_context>", "<hook_context>", "This is the Gemini CLI. We are setting up the context")
# Old builds recorded a tool's answer sent back to the model as a user message in this form.
_TOOL_ANSWER = "[Function Response: "
_CONTEXT_DIR = re.compile(
    r"^\s*- \*\*Workspace Directories:\*\*\s*\n\s*- ([^\n]+)$"
    r"|I'm currently working in the directory: ([^\n]+)$"
    r"|I'm currently working in the following directories:\s*\n\s*- ([^\n]+)$",
    re.MULTILINE,
)
_PENDING = frozenset({"validating", "scheduled", "executing", "awaiting_approval"})
# run_shell_command's text: `Command:`/`Directory:`, `Output:` (older: `Stdout:`/`Stderr:`), then
# trailer lines; since 2026 wrapped in <untrusted_context> and `Exit Code` written only when not 0.
_WRAPPED = re.compile(r"\A\s*<untrusted_context>\n(.*)\n</untrusted_context>\s*\Z", re.DOTALL)
_TRAILER = re.compile(r"\A(Error|Exit Code|Signal|Background PIDs|Process Group PGID): ?(.*)\Z")
_OUTPUT = re.compile(r"^(?:Output|Stdout): ?", re.MULTILINE)
_CANCELLED = re.compile(r"\A\s*(?:<untrusted_context>\s*)?Command was cancelled by user")
_URL = re.compile(r"https?://[^\s)>\]\"']+")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ABSOLUTE = re.compile(r"(?<![\w.~])/[^\s\"'`:;,()<>|\\]+")


def read_gemini(path: Path) -> Session:
    """The whole session in `path`; bad content becomes Problems naming file and line, never errors."""
    session = Session(session_id=path.stem, source_file=str(path), agent="gemini-cli")
    records, meta = fold_chat(path, session)
    session.session_id = _str(meta, "sessionId") or session.session_id
    directories = meta.get("directories")
    if isinstance(directories, list) and directories and isinstance(directories[0], str):
        session.cwd = directories[0]  # the folder the CLI was started in comes first
    if isinstance(meta.get("summary"), str):
        session.summaries.append(meta["summary"])
    if session.cwd is None:
        session.cwd = _folder_of_hash(meta.get("projectHash"), records)
    builder = _Builder(session, meta.get("kind") == "subagent")
    for key in ("startTime", "lastUpdated"):
        builder.time(meta.get(key), key)
    builder.build(records)
    return session


def _folder_of_hash(project_hash: Any, records: Records) -> str | None:
    """The folder whose SHA-256 is the chat's `projectHash` (how the CLI names a project), found
    among the folders above the absolute paths the session names: exact, where the folder is
    otherwise only in the CLI's context text, or nowhere."""
    if not isinstance(project_hash, str) or not _SHA256.fullmatch(project_hash):
        return None
    tried: set[str] = set()
    for _, record in records:
        for path in _ABSOLUTE.findall(json.dumps(record, ensure_ascii=False)):
            parts = path.rstrip("/").split("/")
            for end in range(len(parts), 1, -1):
                folder = "/".join(parts[:end])
                if folder in tried:
                    break  # and every folder above it
                tried.add(folder)
                if hashlib.sha256(folder.encode()).hexdigest() == project_hash:
                    return folder
    return None


class _Builder:
    """Turns the folded message records into Messages and ToolCalls, in conversation order."""

    def __init__(self, session: Session, sidechain: bool) -> None:
        self.session = session
        self.sidechain = sidechain  # a sub-agent's own file (`kind: "subagent"`)
        self.seen: set[str] = set()
        self.line = 1

    def problem(self, message: str) -> None:
        self.session.problems.append(Problem(self.session.source_file, self.line, message))

    def time(self, raw: Any, field: str = "timestamp") -> datetime | None:
        ts = _timestamp(raw)
        if raw is not None and ts is None:
            self.problem(f"{field}: not a time")
        if ts is not None:
            session = self.session
            session.started_at = ts if session.started_at is None else min(session.started_at, ts)
            session.ended_at = ts if session.ended_at is None else max(session.ended_at, ts)
        return ts

    def parts(self, content: Any, report: bool = True) -> list[dict[str, Any]]:
        """A `content` as Part objects: a plain string (old files), one Part, or a list of them."""
        if content is None or isinstance(content, str):
            return [{"text": content}] if content else []
        if isinstance(content, dict):
            return [content]
        if isinstance(content, list):
            return [{"text": p} if isinstance(p, str) else p for p in content if isinstance(p, (str, dict))]
        if report:
            self.problem("content: expected text or a list of parts")
        return []

    def build(self, records: Records) -> None:
        session = self.session
        for _, record in records:  # the folder first: relative paths of the calls are read from it
            content = record.get("content") if record.get("type") == "user" else None
            text = _text(self.parts(content, report=False))
            found = _CONTEXT_DIR.search(text[:20_000]) if text.startswith(_INJECTED) else None
            if found and session.cwd is None:
                session.cwd = next(g for g in found.groups() if g).strip()
        for line, record in records:
            self.line = line
            kind, ts = record.get("type"), self.time(record.get("timestamp"))
            ident = _str(record, "id") or f"line-{line}"
            if kind == "user":
                self.user(record, ident, ts)
            elif kind == "gemini":
                self.gemini(record, ident, ts)
            elif kind == "error":  # the CLI's error notice (an API error): the session's last word
                text = _text(self.parts(record.get("content")))
                if text:
                    session.messages.append(Message(ident, "assistant", text, ts, line, self.sidechain, True))
            # `info`, `warning` and unknown types are notices of the CLI: counted, not conversation.

    def user(self, record: dict[str, Any], ident: str, ts: datetime | None) -> None:
        """A request a person typed (`displayContent`, when given, is what they typed). The CLI's
        context and tool answers (on their calls already) are dropped; an old answer written as
        text, which no call holds, is kept as meta."""
        content = self.parts(record.get("content"))
        if any(isinstance(part.get("functionResponse"), dict) for part in content):
            return  # tool answers sent back to the model (with any text parts of theirs)
        shown = record.get("displayContent")
        text = _text(self.parts(shown) if shown else content)
        if not text or text.startswith(_INJECTED):
            return
        answer = text.startswith(_TOOL_ANSWER)
        message = Message(ident, "user", text if answer else redact_pasted_tokens(text), ts, self.line)
        message.is_sidechain, message.is_meta = self.sidechain, answer
        self.session.messages.append(message)

    def gemini(self, record: dict[str, Any], ident: str, ts: datetime | None) -> None:
        """One model response: its text, its thoughts (subject and description), tokens and calls."""
        parts = self.parts(record.get("content"))
        message = Message(ident, "assistant", _text(parts), ts, self.line, self.sidechain)
        thoughts = record.get("thoughts")
        notes = [t for t in thoughts if isinstance(t, dict)] if isinstance(thoughts, list) else []
        heads = [f"**{t['subject']}** " if isinstance(t.get("subject"), str) else "" for t in notes]
        said = [f"{head}{t.get('description') or ''}".strip() for head, t in zip(heads, notes, strict=True)]
        # A rewritten history may hold the thoughts as `thought` parts of the content as well.
        message.thinking = "\n".join(filter(None, said)) or _text(parts, thoughts=True)
        message.usage = self.usage(record.get("tokens"))
        if message.usage is not None:
            self.session.usage.add(message.usage)
        calls = record.get("toolCalls")
        if calls is not None and not isinstance(calls, list):
            self.problem("toolCalls: expected a list")
        for index, raw in enumerate(calls if isinstance(calls, list) else []):
            self.tool_call(message, raw, f"toolCalls[{index}]", ts)
        if message.text or message.thinking or message.tool_calls:
            self.session.messages.append(message)

    def usage(self, tokens: Any) -> TokenUsage | None:
        """One request's tokens; `cached` is part of `input`, thoughts are billed as output."""
        if not isinstance(tokens, dict):
            if tokens is not None:
                self.problem("tokens: expected an object")
            return None
        counts = {name: tokens.get(name) or 0 for name in ("input", "output", "cached", "thoughts", "tool")}
        for name, value in counts.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                self.problem(f"tokens.{name}: expected a count")
                counts[name] = 0
        cached = min(counts["cached"], counts["input"])
        return TokenUsage(
            input_tokens=counts["input"] - cached + counts["tool"],
            output_tokens=counts["output"] + counts["thoughts"],
            cache_read_input_tokens=cached,
        )

    def tool_call(self, message: Message, raw: Any, where: str, ts: datetime | None) -> None:
        call_id = raw.get("id") if isinstance(raw, dict) else None
        name = raw.get("name") if isinstance(raw, dict) else None
        if not isinstance(call_id, str) or not isinstance(name, str):
            self.problem(f"{where}: a tool call without id or name; skipped")
            return
        if call_id in self.seen:
            return
        self.seen.add(call_id)
        args = raw.get("args")
        if not isinstance(args, dict):
            if args is not None:
                self.problem(f"{where}.args: expected an object")
            args = {}
        when = self.time(raw.get("timestamp"), f"{where}.timestamp") or ts
        kind = GEMINI_TOOL_KINDS.get(name, ToolKind.OTHER)
        tool_input = self.tool_input(kind, args, raw)
        call = ToolCall(call_id, name, tool_input, when, self.line, self.sidechain, kind=kind)
        call.result = _result(name, kind, raw, when)
        message.tool_calls.append(call)
        self.session.tool_calls.append(call)

    def tool_input(self, kind: ToolKind, args: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
        """The arguments, with Claude Code's keys for what the extractors read."""
        if kind is ToolKind.COMMAND:
            found: dict[str, Any] = {"command": str(args.get("command") or "")}
            folder = _first(args, "dir_path", "directory", "cwd")
            if folder is not None:
                found["cwd"] = self.path(folder)
            if isinstance(args.get("description"), str):
                found["description"] = args["description"]
            return found
        if kind in (ToolKind.WRITE, ToolKind.EDIT, ToolKind.READ):
            path = _first(args, "file_path", "absolute_path", "path")
            shown = raw.get("resultDisplay")
            written = shown.get("filePath") if isinstance(shown, dict) else None
            return {**args, "file_path": self.path(path, written)} if path is not None else args
        if kind is ToolKind.SEARCH:
            folder = _first(args, "dir_path", "path", "directory")
            return {**args, "pattern": args.get("pattern", folder), **({"path": folder} if folder else {})}
        if kind is ToolKind.WEB:
            url = _first(args, "url") or next(iter(_URL.findall(str(args.get("prompt", "")))), None)
            return {**args, "url": url} if url else args
        if kind is ToolKind.TODO and isinstance(args.get("todos"), list):
            items = [t for t in args["todos"] if isinstance(t, dict)]
            todos = [
                {"content": t.get("description", t.get("content")), "status": t.get("status")} for t in items
            ]
            return {**args, "todos": todos}
        if kind is ToolKind.SUBAGENT and "prompt" not in args:
            return {**args, "prompt": _first(args, "objective", "query", "task") or ""}
        return args

    def path(self, path: str, written: Any = None) -> str:
        """A path as the tool resolved it: a relative one from the session's folder when known."""
        if ntpath.isabs(path):  # `/x` as well as `C:\\x`
            return path
        if isinstance(written, str) and ntpath.isabs(written):
            return written
        return os.path.normpath(os.path.join(self.session.cwd, path)) if self.session.cwd else path


def _result(name: str, kind: ToolKind, raw: dict[str, Any], when: datetime | None) -> ToolResult | None:
    """A call's answer by its `status`: `error` fails with the error text; `cancelled` (the user's
    doing) is worded as Codex's refusals are, so it is not read as the program failing; a shell
    command fails on a non-zero `Exit Code` though its status says success."""
    status = _str(raw, "status")
    output, error = _response(raw.get("result"))
    if status in _PENDING or (status is None and output is None and error is None):
        return None  # still running, or waiting for the user's approval
    shown = raw.get("resultDisplay")
    text = (error if status == "error" else output) or output or error
    text = text or (shown if isinstance(shown, str) else "")
    if status == "cancelled" or (kind is ToolKind.COMMAND and _CANCELLED.match(text)):
        return ToolResult(f"{name} rejected by user (cancelled)\n{text}".strip(), True, when)
    failed = status == "error" or (status is None and error is not None and not output)
    if kind is ToolKind.COMMAND:
        text, code = _shell(text)
        if code:
            failed, text = True, f"Exit code {code}\n{text}"
    return ToolResult(head_and_tail(text), failed, when)


def _response(result: Any) -> tuple[str | None, str | None]:
    """(output, error) of a call's `result`: its functionResponse parts' `response.output` and
    `response.error`, text parts, or a plain string."""
    if isinstance(result, str):
        return result, None
    outputs: list[str] = []
    errors: list[str] = []
    for part in result if isinstance(result, list) else [result]:
        answer = part.get("functionResponse") if isinstance(part, dict) else None
        response = answer.get("response") if isinstance(answer, dict) else None
        if isinstance(response, dict):
            pairs = (("output", outputs), ("error", errors))
            said = [(response[k], out) for k, out in pairs if response.get(k) is not None]
            for value, out in said or [(response, outputs)]:
                out.append(value if isinstance(value, str) else json.dumps(value))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            outputs.append(part["text"])
    return ("\n".join(outputs) if outputs else None), ("\n".join(errors) if errors else None)


def _shell(text: str) -> tuple[str, int | None]:
    """(output, exit code) of run_shell_command's text, with its wrapper, its `Command:`/`Directory:`
    head and its trailer lines taken off; an `Error:` line is kept at the end."""
    wrapped = _WRAPPED.match(text)
    lines = (wrapped.group(1) if wrapped else text).split("\n")
    fields: dict[str, str] = {}
    while lines and (found := _TRAILER.match(lines[-1])):
        fields.setdefault(found.group(1), found.group(2).strip())
        lines.pop()
    body = "\n".join(lines)
    if not fields and not body.startswith(("Output:", "Stdout:", "Command:")):
        return (wrapped.group(1) if wrapped else text), None  # not the shell's own wording
    start = _OUTPUT.search(body)
    output = body[start.end() :] if start else body
    output = "" if output.strip() == "(empty)" else output
    if fields.get("Error", "(none)") != "(none)":
        output = f"{output}\nError: {fields['Error']}".lstrip("\n")
    code = fields.get("Exit Code", "")
    return output, int(code) if re.fullmatch(r"-?\d+", code) else None


def _text(parts: list[dict[str, Any]], thoughts: bool = False) -> str:
    """The text parts of a content (its `thought` parts only, or all the others)."""
    found = [
        p["text"] for p in parts if isinstance(p.get("text"), str) and bool(p.get("thought")) == thoughts
    ]
    return "\n".join(found).strip()


def _first(args: dict[str, Any], *keys: str) -> str | None:
    return next((args[k] for k in keys if isinstance(args.get(k), str) and args[k]), None)
