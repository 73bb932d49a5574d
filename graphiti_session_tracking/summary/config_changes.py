"""Settings the session changed in configuration files, read from the edits themselves (no LLM).

Each successful Edit/MultiEdit/Write of a config file is turned into "before" and "after" text,
both parsed into flat `setting → value` maps by the file's format, and compared. The whole file is
used when the transcript holds it (Claude Code's `toolUseResult.originalFile`), so a TOML key gets
its `[section]` and a YAML key its parents; otherwise only the edited fragment is compared.

Choices: `.gitignore`, Makefile and Justfile are not settings files (their lines are patterns and
recipes, not key → value) and are left to `files_modified`; a removed setting is reported with
new value "(removed)"; a setting changed several times is one record (first old value, last new
value), and dropped when it ends where it started. Values stay text, cut to VALUE_LIMIT.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from graphiti_session_tracking.transcripts import Session, ToolCall

from ._sentences import cut, split_sentences
from .files import relative_path, written_file
from .model import ConfigChange

VALUE_LIMIT = 200
REMOVED = "(removed)"
_REASON_LIMIT = 300

Settings = dict[str, str]


class Sectioned(dict[str, str]):
    """Settings of a format with section headers (TOML tables, INI sections): `sections` are
    the headers, so a new file is summarized per table (`tool.mypy`), not per first word."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: set[str] = set()


_TRUNCATED_INPUT = re.compile(r"…\[\d+ more\]\Z")
_QUOTED_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'[^\']*\'')
_REASON = re.compile(
    r"\bbecause\b|\bsince\b|\bso that\b|\bso (?:it|we|the|that)\b|\bin order to\b|\bto (?:fix|avoid|allow|"
    r"support|enable|disable|prevent|match|reduce|increase|make|keep|stop|silence|pin|use)\b|\binstead\b|"
    r"\bwas (?:too|wrong|set|in)\b|\bneeds? to\b|\bshould\b|\brequires?\b|\bdue to\b",
    re.IGNORECASE,
)


def extract_config_changes(session: Session) -> list[ConfigChange]:
    """One ConfigChange per setting the session's successful config edits changed, in order.

    A file whose every edit is known whole is compared once, as it was before the session's
    first edit against its last state, so edits that build up one change (or undo one) give the
    net change, and a file the session created is summarized per top-level setting.
    """
    reasons = _reasons_by_call(session)
    files: dict[str, _FileEdits] = {}
    for call in session.tool_calls:
        path = written_file(call)
        if path is None or call.name == "NotebookEdit":
            continue
        parse = config_parser(path)
        if parse is None:
            continue
        edits = files.setdefault(relative_path(path, session.project_root), _FileEdits(parse))
        edits.add(call, reasons.get(call.id, ""))
    merged: dict[tuple[str, str], ConfigChange] = {}
    for file, edits in files.items():
        for setting, old, new, reason in edits.changes():
            earlier = merged.get((file, setting))
            if earlier is None:
                merged[(file, setting)] = ConfigChange(
                    file=file, setting=setting, old_value=old, new_value=new, reason=reason
                )
            else:
                earlier.new_value = new
                earlier.reason = earlier.reason or reason
    return [c for c in merged.values() if c.old_value != c.new_value]


class _FileEdits:
    """The session's edits of one config file: whole texts while every edit is known whole."""

    def __init__(self, parse: Callable[[str], Settings]) -> None:
        self.parse = parse
        self.calls: list[tuple[ToolCall, str]] = []
        self.first: str | None = None  # the text before the first edit (None: the file was new)
        self.last: str | None = None  # the text after the last edit, while edits are whole
        self.whole = True

    def add(self, call: ToolCall, reason: str) -> None:
        pairs, whole = _before_after(call)
        if not self.calls:
            self.first = pairs[0][0] if whole else None
        self.calls.append((call, reason))
        self.whole = self.whole and whole
        self.last = pairs[0][1] if whole else None

    def changes(self) -> Iterator[tuple[str, str | None, str, str]]:
        reason = next((r for _, r in self.calls if r), "")
        if self.whole and self.last is not None:
            for setting, old, new in _diff(self.first, self.last, self.parse):
                yield setting, old, new, reason
            return
        for call, call_reason in self.calls:
            for before, after in _before_after(call)[0]:
                for setting, old, new in _diff(before, after, self.parse):
                    yield setting, old, new, call_reason


def _diff(
    before: str | None, after: str, parse: Callable[[str], Settings]
) -> Iterator[tuple[str, str | None, str]]:
    """(setting, old value or None, new value) for each setting changed from `before` to `after`."""
    old = parse(before) if before is not None else {}
    new = parse(after)
    if before is None and parse is parse_requirements and len(new) > 1:
        # A new requirements file is one change: these dependencies, not one row each.
        yield "dependencies", None, _limit(f"{len(new)} packages: {', '.join(new)}") or ""
        return
    yield from diff_settings(old, new, whole_before=before is not None)


# Folders whose files are data (test fixtures, samples, documentation), whatever their format.
_DATA_FOLDERS = frozenset(
    [
        "test",
        "tests",
        "testdata",
        "test-data",
        "fixtures",
        "__fixtures__",
        "__tests__",
        "spec",
        "specs",
        "data",
        "datasets",
        "examples",
        "example",
        "samples",
        "sample",
        "mocks",
        "__mocks__",
        "docs",
        "doc",
        "snapshots",
        "__snapshots__",
        "golden",
    ]
)
# JSON is as often data as configuration: only these names (or `*rc.json`, `*.config.json`,
# `*config*.json`, `settings*.json`) are configuration.
_CONFIG_JSON = frozenset(
    [
        "package.json",
        "tsconfig.json",
        "jsconfig.json",
        "composer.json",
        "deno.json",
        "deno.jsonc",
        "biome.json",
        "turbo.json",
        "nx.json",
        "lerna.json",
        "vercel.json",
        "firebase.json",
        "app.json",
        "renovate.json",
        "manifest.json",
        ".babelrc",
        "launch.json",
        "tasks.json",
        "extensions.json",
        "devcontainer.json",
        ".devcontainer.json",
        "pyrightconfig.json",
        "angular.json",
        "project.json",
        "eslint.json",
        ".eslintrc",
        ".prettierrc",
        ".stylelintrc",
        "cspell.json",
    ]
)


def _is_config_json(lower: str, folders: set[str] | frozenset[str] = frozenset()) -> bool:
    """Named as configuration, or a manifest that describes the project to a tool (a plugin,
    an extension, a marketplace entry, an MCP server list), or kept in a tool's dot-folder
    (`.vscode/`, `.claude-plugin/`, `.devcontainer/`)."""
    return (
        lower in _CONFIG_JSON
        or lower.startswith(("tsconfig", "settings"))
        or lower.endswith(("rc.json", ".config.json"))
        or any(word in lower for word in ("config", "manifest", "plugin", "extension", "marketplace", "mcp"))
        or any(folder.startswith(".") and folder not in (".", "..") for folder in folders)
    )


def config_parser(path: str) -> Callable[[str], Settings] | None:
    """The settings parser for a configuration file, or None for anything else: files in test,
    fixture, sample and documentation folders are data, and so is JSON not named as config."""
    folders = {part.lower() for part in path.replace("\\", "/").split("/")[:-1]}
    name = posixpath.basename(path.replace("\\", "/"))
    lower = name.lower()
    if folders & _DATA_FOLDERS:
        return None
    if folders & {"issue_template", "pull_request_template", "discussion_template"} and lower != "config.yml":
        return None  # GitHub's issue and PR forms are page text, not settings
    if lower.startswith(".env") or lower.endswith((".env", ".properties")):
        return parse_env
    if lower.startswith("requirements") and lower.endswith((".txt", ".in")):
        return parse_requirements
    if lower.startswith(("dockerfile", "containerfile")) or lower.endswith(".dockerfile"):
        return parse_dockerfile
    if lower.endswith(".toml"):
        return parse_toml
    if lower.endswith((".yaml", ".yml")):
        return parse_yaml
    if (lower.endswith((".json", ".jsonc")) or lower in _CONFIG_JSON) and _is_config_json(lower, folders):
        return parse_json
    if (
        lower == "pom.xml"
        or lower.endswith((".csproj", ".fsproj", ".vbproj"))
        or lower == "directory.build.props"
    ):
        return parse_xml
    if lower.endswith((".ini", ".cfg", ".conf")) or lower in (
        ".editorconfig",
        ".npmrc",
        ".flake8",
        ".pylintrc",
    ):
        return parse_ini
    return None


def diff_settings(
    old: Settings, new: Settings, *, whole_before: bool = True
) -> Iterator[tuple[str, str | None, str]]:
    """What a reader would list as changed between two flat setting maps:

    - a list is compared as a set of items: one record on the list's key naming the items added
      and removed (commenting out one entry is not a shift of every later index);
    - a block that appears or disappears whole (a new file's top-level settings, a new job in a
      workflow) is one record on the block's key, not one per leaf;
    - several entries added to a map that was there (two new dependencies) are one record on it;
    - every other setting whose value changed is its own record.
    """
    # In the file's order: new settings as they appear, then the removed ones.
    changed = [k for k in new if (old.get(k) if whole_before else None) != new[k]]
    changed += [k for k in old if k not in new]
    lists: dict[str, None] = {}
    for key in changed:
        if "[" in key:
            lists.setdefault(key[: key.index("[")], None)
    for list_key in lists:
        appeared = not any(k.startswith(list_key + "[") for k in old)
        disappeared = not any(k.startswith(list_key + "[") for k in new)
        if (appeared and _new_ancestor(list_key, old) != list_key) or (
            disappeared and _new_ancestor(list_key, new) != list_key
        ):
            continue  # the list came or went with the block around it: that block is the record
        added, removed = _list_difference(old, new, list_key)
        changed = [k for k in changed if not (k.startswith(list_key + "[") or k == list_key)]
        if added or removed:
            parts = ([f"added {', '.join(added)}"] if added else []) + (
                [f"removed {', '.join(removed)}"] if removed else []
            )
            yield list_key, None, _limit("; ".join(parts)) or ""
    blocks: dict[str, list[str]] = {}
    for key in changed:
        side = new if key in new and key not in old else old if key in old and key not in new else None
        other = old if side is new else new
        block = _new_ancestor(key, other) if side is not None else key
        section = _section_of(key, side if side is not None else new)
        if len(section) > len(block) and section.startswith(block + "."):
            block = section  # a new TOML table or INI section is its own block
        blocks.setdefault(block, []).append(key)
    added_to: dict[str, list[str]] = {}  # several entries added to one existing map (dependencies)
    for block, keys in blocks.items():
        if whole_before and len(keys) == 1 and keys[0] == block and block not in old and "." in block:
            added_to.setdefault(block.rsplit(".", 1)[0], []).append(block)
    for parent, entries in added_to.items():
        if len(entries) > 1:
            for entry in entries:
                del blocks[entry]
            entries_text = ", ".join(f"{e[len(parent) + 1 :]} {new[e]}".strip() for e in entries)
            yield parent, None, _limit(f"added {entries_text}") or ""
    for block, keys in blocks.items():
        if len(keys) == 1:  # one setting, even inside a new block: the setting itself says most
            (key,) = keys
            value = new.get(key)
            before = _limit(old.get(key) if whole_before else None)
            yield key, before, (_limit(value) or "") if value is not None else REMOVED
        elif any(k in new for k in keys):
            yield block, None, _limit(_summary_of(keys, block, new)) or ""
        else:
            yield block, _limit(_summary_of(keys, block, old)), REMOVED


def _section_of(key: str, settings: Settings) -> str:
    """The longest section header that `key` lies in ('' when the format has none)."""
    sections = getattr(settings, "sections", ())
    return max((name for name in sections if key.startswith(name + ".")), key=len, default="")


def _new_ancestor(key: str, other: Settings) -> str:
    """The outermost dotted prefix of `key` that `other` has nothing under: the block that
    appeared (or disappeared) whole."""
    parts = key.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if not any(k == prefix or k.startswith(prefix + ".") or k.startswith(prefix + "[") for k in other):
            return prefix
    return key


def _summary_of(keys: list[str], block: str, settings: Settings) -> str:
    """A block's settings with their values (`name=demo; version=1.0; …`, cut at VALUE_LIMIT)."""
    pairs = [
        f"{k[len(block) + 1 :]}={settings[k]}" for k in keys if k.startswith(block + ".") and k in settings
    ]
    return "; ".join(pairs) if pairs else f"{len(keys)} settings"


def _list_difference(old: Settings, new: Settings, list_key: str) -> tuple[list[str], list[str]]:
    """Items added to and removed from the list at `list_key`, compared as whole items."""
    before, after = _items(old, list_key), _items(new, list_key)
    added = [_describe(item) for item in after if item not in before]
    removed = [_describe(item) for item in before if item not in after]
    return added, removed


def _items(settings: Settings, list_key: str) -> list[tuple[tuple[str, str], ...]]:
    items: dict[int, list[tuple[str, str]]] = {}
    pattern = re.compile(re.escape(list_key) + r"\[(\d+)\](.*)\Z", re.DOTALL)
    for key, value in settings.items():
        m = pattern.match(key)
        if m:
            items.setdefault(int(m.group(1)), []).append((m.group(2).lstrip("."), value))
    return [tuple(sorted(fields)) for _, fields in sorted(items.items())]


def _describe(item: tuple[tuple[str, str], ...]) -> str:
    """An item by what names it: its name, id, uses, run, key or type field, else its first value."""
    fields = dict(item)
    for name in ("name", "id", "uses", "run", "key", "type", ""):
        if fields.get(name):
            return cut(fields[name].splitlines()[0], 60)
    return cut(next(iter(fields.values()), "").splitlines()[0] if fields else "", 60)


def _before_after(call: ToolCall) -> tuple[list[tuple[str | None, str]], bool]:
    """The file's text before and after the call, whole when known (True), else the edited
    fragments (False). A Write that replaced a file it did not show is not whole."""
    structured: dict[str, Any] = (call.result.structured if call.result else None) or {}
    args = call.full_input  # the whole edit: `input` holds only the start of long texts
    original = structured.get("originalFile")
    original = original if isinstance(original, str) else None
    if call.name == "Write":
        content = structured.get("content")
        after = content if isinstance(content, str) else _whole(args.get("content"))
        created = structured.get("type") == "create"
        before = None if created else original
        return [(before, after)], created or original is not None
    if call.name == "Edit":
        pairs = [
            (
                _text(structured.get("oldString"), args.get("old_string")),
                _text(structured.get("newString"), args.get("new_string")),
            )
        ]
        replace_all = bool(structured.get("replaceAll", args.get("replace_all")))
    else:  # MultiEdit
        edits = args.get("edits")
        pairs = [
            (_whole(e.get("old_string")), _whole(e.get("new_string")))
            for e in (edits if isinstance(edits, list) else [])
            if isinstance(e, dict)
        ]
        replace_all = False
    if original is not None:
        updated: str | None = original
        for old, new in pairs:
            if updated is None or not old or old not in updated:
                updated = None
                break
            updated = updated.replace(old, new) if replace_all else updated.replace(old, new, 1)
        if updated is not None:
            return [(original, updated)], True
    return [(old, new) for old, new in pairs], False


def _text(preferred: Any, fallback: Any) -> str:
    return preferred if isinstance(preferred, str) else _whole(fallback)


def _whole(value: Any) -> str:
    """A tool input string; one cut (`…[N more]`) loses its unfinished last line, not a wrong value."""
    if not isinstance(value, str):
        return ""
    text: str = value
    marker = _TRUNCATED_INPUT.search(text)
    if marker:
        text = text[: marker.start()]
        text = text[: text.rfind("\n") + 1] if "\n" in text else ""
    return text


def _limit(value: str | None) -> str | None:
    if value is None:
        return None
    return value if len(value) <= VALUE_LIMIT else value[: VALUE_LIMIT - 1] + "…"


def _reasons_by_call(session: Session) -> dict[str, str]:
    """Each call id → the explaining sentence of the assistant text that led up to it, if any.

    The text looked at is the latest assistant text since the person last spoke: the words
    written right before the edit, even when they came a few silent tool calls earlier.
    """
    reasons: dict[str, str] = {}
    latest = ""
    for message in session.messages:
        if message.is_sidechain:
            continue
        if message.is_human:
            latest = ""
            continue
        if message.role != "assistant":
            continue
        if message.text.strip():
            latest = message.text
        if message.tool_calls:
            explaining = [s.text for s in split_sentences(latest) if _REASON.search(s.prose)]
            reason = cut(explaining[-1], _REASON_LIMIT) if explaining else ""
            for call in message.tool_calls:
                reasons[call.id] = reason
    return reasons


# --- parsers: text → {setting: value}, forgiving, fragments welcome ------------------------------
#
# A whole file is read by the format's own library first (tomllib, PyYAML, configparser, json);
# an edited fragment or a file the library refuses falls back to a forgiving line scan.


def parse_toml(text: str) -> Settings:
    """TOML: keys dotted under their tables (`tool.ruff.line-length`); each table is a section."""
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return _toml_lines(text)
    settings = Sectioned()
    _flatten(document, "", settings)
    settings.sections.update(_tables(document, ""))
    return settings


def _tables(document: dict[str, Any], path: str) -> Iterator[str]:
    """The tables that hold settings of their own (`[tool.black]`, not the bare `tool`)."""
    for key, value in document.items():
        if isinstance(value, dict):
            name = f"{path}.{key}" if path else str(key)
            if any(not isinstance(v, dict) for v in value.values()):
                yield name
            yield from _tables(value, name)


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


def parse_ini(text: str) -> Settings:
    """INI / setup.cfg style: `[section]` headers, `key = value` or `key: value`."""
    parser = configparser.RawConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    try:
        parser.read_string(text)
    except configparser.Error:
        return _ini_lines(text)
    settings = Sectioned()
    for section in parser.sections():
        settings.sections.add(section)
        for key, value in parser.items(section, raw=True):
            settings[f"{section}.{key}"] = _unquote(" ".join((value or "").split()))
    return settings


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _strip_comment(value: str, markers: str = "#") -> str:
    """A value without a trailing comment (` # …`) that lies outside quotes."""
    masked = _QUOTED_STRINGS.sub(lambda m: "x" * len(m.group(0)), value)
    for marker in markers:
        at = masked.find(" " + marker)
        if at >= 0:
            value, masked = value[:at], masked[:at]
    return value.strip()


def _balance(text: str) -> int:
    masked = _QUOTED_STRINGS.sub("", text)
    return masked.count("[") + masked.count("{") - masked.count("]") - masked.count("}")


def parse_env(text: str) -> Settings:
    """`.env` style: `KEY=value`, `export KEY=value`, comments with `#`."""
    settings: Settings = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(?:export\s+)?([A-Za-z_][\w.\-]*)\s*=\s*(.*)$", line)
        if m:
            settings[m.group(1)] = _unquote(_strip_comment(m.group(2)))
    return settings


def _ini_lines(text: str) -> Settings:
    """INI / setup.cfg style, line by line (fragments, files configparser refuses): `[section]` headers, `key = value` or `key: value`."""
    settings = Sectioned()
    section = ""
    last_key = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        header = re.match(r"^\[([^\]]+)\]$", stripped)
        if header:
            section, last_key = header.group(1).strip(), ""
            settings.sections.add(section)
            continue
        if line[:1].isspace() and last_key:  # continuation line of a multi-line value
            settings[last_key] = f"{settings[last_key]} {stripped}".strip()
            continue
        m = re.match(r"^([^=:\s][^=:]*?)\s*[=:]\s*(.*)$", stripped)
        if m:
            last_key = f"{section}.{m.group(1)}" if section else m.group(1)
            settings[last_key] = _unquote(_strip_comment(m.group(2), "#;"))
    return settings


def _toml_lines(text: str) -> Settings:
    """TOML line by line (fragments, broken files): `[table]` / `[[array]]` headers prefix keys (`tool.ruff.line-length`); multi-line arrays."""
    settings = Sectioned()
    section = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        i += 1
        if not stripped or stripped.startswith("#"):
            continue
        header = re.match(r"^\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$", stripped)
        if header:
            section = ".".join(_unquote(part) for part in header.group(1).split("."))
            settings.sections.add(section)
            continue
        m = re.match(r"^([A-Za-z0-9_\-.\"' ]+?)\s*=\s*(.*)$", stripped)
        if not m:
            continue
        value = _strip_comment(m.group(2))
        if value.startswith(('"""', "'''")) and value.count(value[:3]) < 2:
            quote = value[:3]
            while i < len(lines) and quote not in value[3:]:
                value += "\n" + lines[i]
                i += 1
        while _balance(value) > 0 and i < len(lines):
            value += " " + _strip_comment(lines[i].strip())
            i += 1
        key = ".".join(_unquote(part) for part in m.group(1).split("."))
        settings[f"{section}.{key}" if section else key] = _tidy(value)
    return settings


def _tidy(value: str) -> str:
    """A scalar without its quotes; an array or table on one line, without layout spaces."""
    value = value.strip()
    if value.startswith(('"""', "'''")):
        return value[3:-3].strip() if len(value) >= 6 else value
    if value.startswith(("[", "{")):
        value = " ".join(value.split())
        value = re.sub(r"([\[{])\s+", r"\1", value)
        value = re.sub(r",?\s*([\]}])", r"\1", value)
        return value
    return _unquote(value)


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


def parse_xml(text: str) -> Settings:
    """Maven and MSBuild project files: properties, the project's own coordinates, and each
    dependency, plugin or package reference keyed by its name (`dependencies.org.x:lib` = its
    version), so an added or bumped dependency is one setting. Unparseable XML gives nothing."""
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return {}

    def local(tag: str) -> str:
        return tag.rsplit("}", 1)[-1]

    def child(element: ElementTree.Element, name: str) -> str:
        found = next((c for c in element if local(c.tag) == name), None)
        return (found.text or "").strip() if found is not None else ""

    settings: Settings = {}
    for element in root:
        name = local(element.tag)
        if name in ("groupId", "artifactId", "version", "packaging", "name") and (element.text or "").strip():
            settings[name] = (element.text or "").strip()
        elif name in ("properties", "PropertyGroup"):
            for prop in element:
                settings[f"properties.{local(prop.tag)}"] = (prop.text or "").strip()
    for element in root.iter():
        name = local(element.tag)
        if name in ("dependency", "plugin") and child(element, "artifactId"):
            coordinates = ":".join(p for p in (child(element, "groupId"), child(element, "artifactId")) if p)
            section = "dependencies" if name == "dependency" else "plugins"
            settings[f"{section}.{coordinates}"] = (
                child(element, "version") or child(element, "scope") or "(managed)"
            )
        elif name == "PackageReference" and element.get("Include"):
            settings[f"packages.{element.get('Include')}"] = element.get("Version") or child(
                element, "Version"
            )
        elif name == "module" and (element.text or "").strip():
            settings[f"modules.{(element.text or '').strip()}"] = "module"
    return settings


def parse_json(text: str) -> Settings:
    """JSON: the whole document when it parses (nested keys dotted), else `"key": value` lines."""
    try:
        document = json.loads(text)
    except ValueError:
        return _json_lines(text)
    settings: Settings = {}
    _flatten(document, "", settings)
    return settings


def _flatten(value: Any, path: str, out: Settings) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", out)
    elif path:
        out[path] = value if isinstance(value, str) else json.dumps(value)


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


def parse_requirements(text: str) -> Settings:
    """requirements.txt: package → its version specifier (`*` when unpinned)."""
    settings: Settings = {}
    for line in text.splitlines():
        stripped = _strip_comment(line).strip()
        if not stripped or stripped.startswith(("-", "#")):
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)(\[[^\]]*\])?\s*(.*)$", stripped)
        if m:
            settings[m.group(1).lower()] = m.group(3).strip() or "*"
    return settings


def parse_dockerfile(text: str) -> Settings:
    """Dockerfile: keyed instructions (FROM, WORKDIR, EXPOSE, CMD, …) and `ENV`/`ARG` names."""
    settings: Settings = {}
    for line in text.replace("\\\n", " ").splitlines():
        m = re.match(r"^\s*([A-Za-z]+)\s+(.*)$", line)
        if not m:
            continue
        instruction, rest = m.group(1).upper(), m.group(2).strip()
        if instruction in ("ENV", "ARG", "LABEL"):
            for name, value in re.findall(r"([\w.\-]+)(?:=(\"[^\"]*\"|\S*))?", rest):
                settings[f"{instruction} {name}"] = _unquote(value)
                if instruction == "ENV" and "=" not in rest:  # legacy `ENV NAME value`
                    settings[f"ENV {name}"] = rest[len(name) :].strip()
                    break
        elif instruction in (
            "FROM",
            "WORKDIR",
            "USER",
            "EXPOSE",
            "CMD",
            "ENTRYPOINT",
            "HEALTHCHECK",
            "SHELL",
        ):
            settings[instruction] = rest
    return settings
