"""Dependencies a package manager's command added to or removed from its manifest: `pnpm add
lucide-react` changes package.json as surely as an edit would, though no file tool touched it.

Only a command that succeeded counts, and only the package managers whose `add`/`remove` write a
manifest of the project (npm, pnpm, yarn, bun, cargo, uv, poetry, go get); a global install or a
bare `npm install` (which installs what the manifest already says) changes no setting. The version
is the one the command asked for (`zod@^3.23`, `httpx==0.27`), else the one it printed, else
"(added)". An agent's shell keeps the folder a `cd` moved to from one call to the next (Claude
Code's does), so the manifest is the one in that folder.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from ..errors.verdict import failure_lines
from ..files import relative_path
from .diff import REMOVED

ADDED = "(added)"


@dataclass(frozen=True)
class _Manager:
    manifest: str
    adds: frozenset[str]
    removes: frozenset[str]
    section: str  # where an added dependency goes
    dev_section: str  # and with the dev flag
    dev_flags: frozenset[str]


_JS_DEV = frozenset({"-D", "--save-dev", "--dev", "-d"})
_MANAGERS = {
    "npm": _Manager(
        "package.json",
        frozenset({"install", "i", "add"}),
        frozenset({"uninstall", "remove", "rm", "un"}),
        "dependencies",
        "devDependencies",
        _JS_DEV - {"-d"},
    ),
    "pnpm": _Manager(
        "package.json",
        frozenset({"add"}),
        frozenset({"remove", "rm", "uninstall"}),
        "dependencies",
        "devDependencies",
        _JS_DEV - {"-d"},
    ),
    "yarn": _Manager(
        "package.json",
        frozenset({"add"}),
        frozenset({"remove"}),
        "dependencies",
        "devDependencies",
        _JS_DEV - {"-d"},
    ),
    "bun": _Manager(
        "package.json",
        frozenset({"add"}),
        frozenset({"remove", "rm"}),
        "dependencies",
        "devDependencies",
        _JS_DEV,
    ),
    "cargo": _Manager(
        "Cargo.toml",
        frozenset({"add"}),
        frozenset({"remove", "rm"}),
        "dependencies",
        "dev-dependencies",
        frozenset({"--dev"}),
    ),
    "uv": _Manager(
        "pyproject.toml",
        frozenset({"add"}),
        frozenset({"remove"}),
        "project.dependencies",
        "dependency-groups.dev",
        frozenset({"--dev"}),
    ),
    "poetry": _Manager(
        "pyproject.toml",
        frozenset({"add"}),
        frozenset({"remove"}),
        "tool.poetry.dependencies",
        "tool.poetry.group.dev.dependencies",
        frozenset({"--dev", "-D"}),
    ),
    "go": _Manager("go.mod", frozenset({"get"}), frozenset(), "require", "require", frozenset()),
}
# Flags that take a value (`--filter web`, `-w`, `--features x`): their value is no package.
_VALUED = frozenset(
    {"--filter", "-F", "--features", "--package", "-p", "--group", "-G", "--registry", "--tag"}
)
_GLOBAL = frozenset({"-g", "--global", "--location=global"})
# What the managers print for what they added: `+ zod 3.23.8`, ` + httpx==0.27.0`, `Adding serde
# v1.0.2 to dependencies`, `go: added golang.org/x/text v0.3.0`, `installed zod@3.23.8`.
_PRINTED = re.compile(
    r"^\s*\+\s+(?P<a>\S+?)(?:==|\s+)(?P<av>\d\S*)"
    r"|\bAdding (?P<b>\S+) v(?P<bv>\d\S*) to"
    r"|^go: (?:added|upgraded) (?P<c>\S+) (?:\S+ => )?(?P<cv>v\S+)"
    r"|\binstalled (?P<d>@?[^@\s]+)@(?P<dv>\d\S*)",
    re.MULTILINE,
)
_MANAGER = re.compile(rf"(?:^|[\s;&|(])(?:{'|'.join(_MANAGERS)})\s")
_CD = re.compile(r"(?:^|[;&|]\s*)cd\s+(\"[^\"]*\"|'[^']*'|[^\s;&|]+)")
_REDIRECT = re.compile(r"\d*>&\d+|&>")  # `2>&1`, `&> log`
_SPEC = re.compile(r"^(?P<name>@?[^@=<>~^!\s]+)@?(?P<version>.*)$")


def install_changes(session: Session) -> Iterator[tuple[str, str, str]]:
    """(manifest path, setting, new value) for each dependency a successful command added or
    removed, in the session's order."""
    folder = ""  # the shell's folder: an agent's shell keeps a `cd` from one call to the next
    for call in session.tool_calls:
        command = call.input.get("command") if call.kind is ToolKind.COMMAND else None
        if not isinstance(command, str):
            continue
        ok = bool(_MANAGER.search(command)) and failure_lines(call) == []
        if not ok:
            moves = _CD.findall(command) if "cd " in command else []
            for target in moves:  # a command that only moves: where it ends, without reading it all
                folder = _moved(folder, target.strip("'\""))
            continue
        printed = _printed_versions(call)
        for where, words in _segments(command, folder):
            folder = where  # the last is where the line leaves the shell
            for manifest, setting, value in _changes(words, printed):
                path = posixpath.normpath(posixpath.join(where, manifest)) if where else manifest
                yield relative_path(path, session.project_root), setting, value


def _printed_versions(call: ToolCall) -> dict[str, str]:
    text = call.result.text if call.result is not None else ""
    found: dict[str, str] = {}
    for m in _PRINTED.finditer(text):
        name = next(g for g in (m["a"], m["b"], m["c"], m["d"]) if g)
        found[name] = next(g for g in (m["av"], m["bv"], m["cv"], m["dv"]) if g)
    return found


def _segments(command: str, folder: str) -> Iterator[tuple[str, list[str]]]:
    """Each simple command of a command line, with the folder a `cd` moved to before it (the
    last one yielded is the folder the line ends in); redirections left out."""
    try:
        lexer = shlex.shlex(_REDIRECT.sub(" ", command), posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        yield folder, []
        return  # unbalanced quotes: not a command line we can read
    words: list[str] = []
    redirected = False
    if "<<" in tokens or "<<-" in tokens:  # a here-document: its lines are text, not commands
        tokens = tokens[: tokens.index("<<" if "<<" in tokens else "<<-")]
    for token in [*tokens, ";"]:
        if token and set(token) <= set("<>"):
            redirected = True  # `> out.log`: the next word is a file, not an argument
        elif token and set(token) <= set(";&|"):
            if len(words) >= 2 and words[0] == "cd":
                folder = _moved(folder, words[1])
            elif words:
                yield folder, words
            words = []
        elif redirected:
            redirected = False
        else:
            words.append(token)
    yield folder, []


def _moved(folder: str, target: str) -> str:
    """The folder after `cd target` (home or the previous folder: the project root, as far as we know)."""
    return "" if target.startswith(("~", "-")) else posixpath.join(folder, target)


def _changes(words: list[str], printed: dict[str, str]) -> Iterator[tuple[str, str, str]]:
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # `CI=1 pnpm add x`
    if len(words) < 3 or words[0] not in _MANAGERS:
        return
    manager = _MANAGERS[words[0]]
    verb, rest = words[1], words[2:]
    if verb not in manager.adds | manager.removes or _GLOBAL & set(rest):
        return
    section = manager.dev_section if manager.dev_flags & set(rest) else manager.section
    group = next((rest[i + 1] for i, w in enumerate(rest[:-1]) if w in ("--group", "-G")), None)
    if group and words[0] in ("uv", "poetry"):
        section = (
            f"dependency-groups.{group}" if words[0] == "uv" else f"tool.poetry.group.{group}.dependencies"
        )
    packages, skip = [], False
    for word in rest:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif not word.startswith(("-", ".", "/")) and ":" not in word:
            packages.append(word)  # a path, URL or `git+…` spec names no package: left out
    for package in packages:
        m = _SPEC.match(package)
        if m is None:
            continue
        name = m["name"]
        if verb in manager.removes:
            yield manager.manifest, f"{section}.{name}", REMOVED
        else:
            yield manager.manifest, f"{section}.{name}", m["version"] or printed.get(name) or ADDED
