"""Parsers of nested formats, YAML and JSON: nested keys joined with dots, list items indexed."""

from __future__ import annotations

import json
import re

import yaml

from .settings import Settings, _flatten, _strip_comment, _unquote


class _YamlLoader(yaml.SafeLoader):
    """YAML 1.2 booleans: only true/false, so a workflow's `on:` stays the key `on`."""


_YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def parse_yaml(text: str) -> Settings:
    """YAML: nested keys joined with dots, list items as `key[0].name`, scalar lists inline."""
    try:
        document = yaml.load(text, Loader=_YamlLoader)
    except yaml.YAMLError:
        return _yaml_lines(text)
    if not isinstance(document, dict):
        return _yaml_lines(text)
    settings: Settings = {}
    _flatten(document, "", settings)
    return settings


def _yaml_lines(text: str) -> Settings:
    """YAML by indentation (fragments, broken files): nested keys joined with dots, list items as `key[0].name`, scalar lists inline."""
    settings: Settings = {}
    scalar_lists: dict[str, list[str]] = {}
    item_counts: dict[str, int] = {}
    stack: list[tuple[int, str, bool]] = []  # (indent, path, opened by a `- ` item)
    lines = text.splitlines()
    i = 0

    def put(indent: int, parent: str, item: str) -> None:
        nonlocal i
        m = re.match(r"^(\"[^\"]*\"|'[^']*'|[^\s#:][^:#]*?)\s*:(?:\s+(.*))?$", item)
        if not m:
            return
        path = f"{parent}.{_unquote(m.group(1))}" if parent else _unquote(m.group(1))
        value = _strip_comment(m.group(2) or "")
        if not value:
            stack.append((indent, path, False))
        elif value[0] in "|>":
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
                block.append(lines[i].strip())
                i += 1
            settings[path] = "\n".join(block).strip()
        else:
            settings[path] = _unquote(value)

    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped in ("---", "..."):
            continue
        indent = _indent(line)
        if stripped == "-" or stripped.startswith("- "):
            while stack and (stack[-1][0] > indent or (stack[-1][0] == indent and stack[-1][2])):
                stack.pop()
            parent = stack[-1][1] if stack else ""
            item = stripped[1:].strip()
            if re.match(r"^(\"[^\"]*\"|'[^']*'|[^\s#:\"'{\[][^:#]*?)\s*:(\s|$)", item):
                index = item_counts.get(parent, 0)
                item_counts[parent] = index + 1
                path = f"{parent}[{index}]"
                stack.append((indent, path, True))
                put(indent + 2, path, item)
            elif item:
                scalar_lists.setdefault(parent, []).append(_unquote(_strip_comment(item)))
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        put(indent, stack[-1][1] if stack else "", stripped)
    for path, items in scalar_lists.items():
        settings[path] = "[" + ", ".join(items) + "]"
    return settings


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parse_json(text: str) -> Settings:
    """JSON: the whole document when it parses (nested keys dotted), else `"key": value` lines."""
    try:
        document = json.loads(text)
    except ValueError:
        return _json_lines(text)
    settings: Settings = {}
    _flatten(document, "", settings)
    return settings


def _json_lines(text: str) -> Settings:
    """A JSON fragment (an edit's old or new string), read line by line with `{`/`}` nesting."""
    settings: Settings = {}
    stack: list[str] = []
    for line in text.splitlines():
        stripped = line.strip().rstrip(",")
        m = re.match(r'^"((?:[^"\\]|\\.)*)"\s*:\s*(.*)$', stripped)
        if m:
            key = ".".join([*stack, m.group(1)])
            value = m.group(2).strip()
            if value == "{":
                stack.append(m.group(1))
            elif value != "[":
                settings[key] = _unquote(value)
            continue
        if stripped == "}" and stack:
            stack.pop()
    return settings
