"""A user's JSON file edited as text (settings.json, ~/.claude.json, .mcp.json): what we add is
written in the file's own style (indentation, separators, line endings, non-ASCII as is) and cut
out again with the separator that came with it, so every other byte stays and adding then removing
gives the file back byte for byte. json.loads checks the file first; this only locates values.

A file is replaced whole (a temporary file beside it, renamed), keeping its mode; a symbolic link
(dotfiles) stays one, the file it points to is the one replaced; the file as it was is kept beside
it as `<name>.graphiti-sessions.bak`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphiti_session_tracking.private_files import private_folder, write_private


class JsonFileError(Exception):
    """A file that cannot be used as it is (it is left untouched)."""


def load(path: Path) -> tuple[str, Any]:
    """The file's text and its value, checked before anything is written: a file we cannot use
    is reported (with json's line) and left as it is. A missing or blank file is `{}`."""
    if not path.exists():
        return "", {}
    try:
        text = path.read_bytes().decode("utf-8")  # not read_text: its newline translation loses \r\n
    except (OSError, UnicodeDecodeError) as exc:
        raise JsonFileError(f"{path}: cannot read it ({exc}); left as it is") from exc
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); left as it is") from exc
    if not isinstance(data, dict):
        raise JsonFileError(f"{path}:1: the file must hold a JSON object; left as it is")
    return text, data


def set_member(text: str, keys: list[str], value: Any) -> str:
    """`text` with the object at `keys[:-1]` (made where missing) holding `keys[-1]`: `value`,
    replacing what was there."""
    text = text if text.strip() else "{}\n"
    root = parse(text)
    node, path = root, list[tuple[Node, int]]()
    for depth, key in enumerate(keys):
        member = node.member(key) if isinstance(node.value, dict) else None
        if member is None:
            rest: Any = value
            for outer in reversed(keys[depth + 1 :]):
                rest = {outer: rest}
            return append(text, node, key, rest, style_of(text, root))
        path.insert(0, (node, node.elements.index(member)))
        node = member.node
    text = Edit(path).remove(text, upto=0)
    return set_member(text, keys, value)


def remove_member(text: str, keys: list[str]) -> str:
    """`text` without `keys[-1]` of the object at `keys[:-1]`; an object that leaves empty goes
    too (up to the root), so a member `set_member` added comes out as it went in."""
    if not text.strip():
        return text
    node, path = parse(text), list[tuple[Node, int]]()
    for key in keys:
        member = node.member(key) if isinstance(node.value, dict) else None
        if member is None:
            return text
        path.insert(0, (node, node.elements.index(member)))
        node = member.node
    return Edit(path).remove(text, upto=len(keys) - 1)


_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


@dataclass(eq=False)  # told apart by identity: two may hold the same
class Node:
    """A JSON value in the text: `start`..`end` is its source; a container's elements are its
    members (from a key's opening quote to its value's end) or items, in the text's order."""

    start: int
    end: int
    value: Any
    elements: list[Element] = field(default_factory=list)

    def member(self, key: str) -> Element | None:
        """The member json.loads keeps for `key` (the last one, if it is repeated)."""
        return next((e for e in reversed(self.elements) if e.key == key), None)


@dataclass(eq=False)
class Element:
    start: int
    end: int
    node: Node
    key: str | None = None


def parse(text: str) -> Node:
    """The root object of a text json.loads has already accepted (so no error is looked for)."""
    return _value(text, _skip(text, 0))


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _value(text: str, at: int) -> Node:
    opening = text[at]
    if opening not in "{[":
        value, end = _DECODER.raw_decode(text, at)
        return Node(at, end, value)
    closing = "}" if opening == "{" else "]"
    node = Node(at, at, {} if opening == "{" else [])
    at = _skip(text, at + 1)
    while text[at] != closing:
        start, key = at, None
        if opening == "{":
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, _skip(text, at) + 1)  # past the colon
        child = _value(text, at)
        node.elements.append(Element(start, child.end, child, key))
        if key is None:
            node.value.append(child.value)
        else:
            node.value[key] = child.value
        at = _skip(text, child.end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    node.end = at + 1
    return node


@dataclass(frozen=True)
class Style:
    """How the file is written, so what we add looks like the rest: the indentation step (two
    spaces, four, a tab), the line ending, what sits around a member's colon, and whether it is
    written on one line."""

    unit: str
    newline: str
    colon: str
    one_line: bool


def style_of(text: str, root: Node) -> Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    if not root.elements:
        return Style("  ", newline, ": ", one_line=False)
    first = root.elements[0]
    lead = text[root.start + 1 : first.start]
    own = _line_indent(text, root.start)
    step = lead.rsplit("\n", 1)[-1].removeprefix(own) if "\n" in lead else ""
    return Style(step or "  ", newline, _colon(text, first), one_line="\n" not in lead)


def _colon(text: str, member: Element) -> str:
    """The text between a member's key and its value, as the user writes it (`": "`, `":"`)."""
    between = text[member.start : member.node.start]
    between = between[between.rindex('"') + 1 :]
    return between if "\n" not in between else ": "


def _line_indent(text: str, at: int) -> str:
    """The indentation of the line `at` is on."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    return line[: len(line) - len(line.lstrip(" \t"))]


@dataclass(frozen=True)
class Edit:
    """One element of a container, and the containers around it up to the root (innermost first),
    so removing it can take along those it would leave empty."""

    path: list[tuple[Node, int]]  # (container, index of the element in it), innermost first

    def remove(self, text: str, upto: int) -> str:
        """Cut the element out with the separator that came with it, so that adding it and
        removing it again gives the same bytes. A container it would leave empty is cut out of its
        own container instead, up to `upto` levels out (1: its group; 3: `hooks` itself)."""
        level = 0
        while level < upto and len(self.path[level][0].elements) == 1:
            level += 1
        container, index = self.path[level]
        items = container.elements
        if len(items) == 1:
            start, end = container.start + 1, container.end - 1  # `{}` / `[]`
        elif index < len(items) - 1:
            start, end = items[index].start, items[index + 1].start
        else:
            start, end = items[index - 1].end, items[index].end
        return text[:start] + text[end:]


def append(text: str, container: Node, key: str | None, value: Any, style: Style) -> str:
    """Add an element at the end of `container`, written as its siblings are: after a copy of the
    separator between the last two (or before the first), indented to match."""
    items = container.elements
    if items:
        lead = text[container.start + 1 : items[0].start]
        separator = text[items[-2].end : items[-1].start] if len(items) > 1 else "," + lead
        one_line = "\n" not in separator
        if one_line and len(items) == 1 and not lead:
            separator = "," + (" " if " " in style.colon else "")
        indent = separator.rsplit("\n", 1)[-1] if not one_line else ""
        at = items[-1].end
        added = separator + _render(key, value, style, one_line, indent)
    else:
        own = _line_indent(text, container.start)
        at = container.start + 1
        if style.one_line:
            added = _render(key, value, style, True, "")
        else:
            indent = own + style.unit
            added = style.newline + indent + _render(key, value, style, False, indent) + style.newline + own
        text = text[:at] + text[container.end - 1 :]  # whitespace alone inside `{ }` goes
    return text[:at] + added + text[at:]


def _render(key: str | None, value: Any, style: Style, one_line: bool, indent: str) -> str:
    """A member (or an item) as the file writes its own: non-ASCII kept, the file's indentation."""
    if one_line:
        comma = "," + (" " if " " in style.colon else "")
        body = json.dumps(value, ensure_ascii=False, separators=(comma, style.colon))
    else:
        body = json.dumps(value, ensure_ascii=False, indent=style.unit, separators=(",", style.colon))
        body = body.replace("\n", style.newline + indent)  # strings hold no raw newline
    return body if key is None else json.dumps(key, ensure_ascii=False) + style.colon + body


def write(path: Path, text: str) -> None:
    """The settings file is the user's: one that exists keeps its mode, and a symbolic link stays
    one (its target is replaced). A new one, its new folders and the backup are private (0700 /
    0600): settings.json may hold secrets in `env`."""
    private_folder(path.parent)
    if path.exists():
        write_private(path.with_name(path.name + ".graphiti-sessions.bak"), path.read_bytes())
    target = Path(os.path.realpath(path))
    private_folder(target.parent)
    _replace(target, text.encode("utf-8"))


def _replace(target: Path, data: bytes) -> None:
    """Write `target` whole or not at all: a temporary file beside the target (not beside a link
    to it), given the target's mode, then renamed onto it. Where the target's folder takes no new
    file but the target can be written, it is rewritten in place rather than not at all."""
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except PermissionError:
        if not target.exists():
            raise
        with open(target, "r+b") as handle:
            handle.write(data)
            handle.truncate()
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            shutil.copymode(target, temporary)
            with contextlib.suppress(OSError):  # the owner too, when we may (root editing a user's file)
                stat = target.stat()
                os.chown(temporary, stat.st_uid, stat.st_gid)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
