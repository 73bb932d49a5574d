"""What kind of file a path names (test, docs, config, code), because writing a test file is
testing and writing a README is documenting, whatever tool wrote it."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePosixPath

from .model import ToolDomain, ToolIntent


class FileKind(StrEnum):
    TEST = "test"
    DOCS = "docs"
    CONFIG = "config"
    CODE = "code"
    OTHER = "other"


_TEST_NAME = re.compile(
    r"^(test_.*|.*_test|.*_tests|.*\.test|.*\.spec|.*_spec|.*Test|.*Tests|conftest)\.[A-Za-z0-9]+$"
)
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "e2e"})
_DOC_SUFFIXES = frozenset(
    {".md", ".markdown", ".rst", ".adoc", ".org", ".mdx"}
)  # .txt only by name or folder
_DOC_STEMS = frozenset({"readme", "changelog", "changes", "license", "contributing", "authors", "notice"})
_DOC_DIRS = frozenset({"docs", "doc", "documentation"})
_CONFIG_NAMES = frozenset(
    {
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "package.json",
        "package-lock.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "uv.lock",
        "poetry.lock",
        "cargo.toml",
        "cargo.lock",
        "go.mod",
        "go.sum",
        "makefile",
        "justfile",
        "dockerfile",
        "procfile",
        "gemfile",
        "pipfile",
        "tsconfig.json",
        "jsconfig.json",
        "settings.json",
        "manifest.in",
        "tox.ini",
        "noxfile.py",
        "pytest.ini",
        "mypy.ini",
        "ruff.toml",
        "claude.md",
    }
)
_CONFIG_SUFFIXES = frozenset(
    {".toml", ".ini", ".cfg", ".conf", ".yaml", ".yml", ".env", ".properties", ".lock"}
)
_CONFIG_PATTERN = re.compile(
    r"^(\.env.*|\.git(ignore|attributes|modules)|\.(editorconfig|npmrc|nvmrc|python-version|tool-versions)"
    r"|\.(eslintrc|prettierrc|babelrc|stylelintrc).*|requirements.*\.(txt|in)|.*\.config\.[cm]?[jt]s"
    r"|docker-compose.*|compose\.ya?ml|.*\.dockerfile)$"
)
_CODE_SUFFIXES = frozenset(
    {
        ".py",
        ".pyi",
        ".rs",
        ".go",
        ".js",
        ".jsx",
        ".ts",
        ".tsx",
        ".mjs",
        ".cjs",
        ".java",
        ".kt",
        ".scala",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".rb",
        ".php",
        ".swift",
        ".m",
        ".sh",
        ".bash",
        ".zsh",
        ".sql",
        ".lua",
        ".ex",
        ".exs",
        ".erl",
        ".hs",
        ".ml",
        ".clj",
        ".dart",
        ".vue",
        ".svelte",
        ".html",
        ".css",
        ".scss",
        ".ipynb",
        ".r",
        ".jl",
        ".zig",
        ".nim",
        ".cypher",
    }
)


def file_kind(path: str) -> FileKind:
    """Classify by name and folders; tests win over docs and config (a test's README is still a test)."""
    if not path:
        return FileKind.OTHER
    pure = PurePosixPath(path.replace("\\", "/"))
    name = pure.name
    lower = name.lower()
    folders = {p.lower() for p in pure.parts[:-1]}
    suffix = pure.suffix.lower()
    if _TEST_NAME.match(name) or (folders & _TEST_DIRS and suffix in _CODE_SUFFIXES):
        return FileKind.TEST
    if lower in _CONFIG_NAMES or _CONFIG_PATTERN.match(lower) or ".github" in folders:
        return FileKind.CONFIG
    if suffix in _DOC_SUFFIXES or pure.stem.lower() in _DOC_STEMS or folders & _DOC_DIRS:
        return FileKind.DOCS
    if suffix in _CONFIG_SUFFIXES:
        return FileKind.CONFIG
    if suffix in _CODE_SUFFIXES:
        return FileKind.CODE
    return FileKind.OTHER


def kind_domain(kind: FileKind) -> ToolDomain:
    return {
        FileKind.TEST: ToolDomain.TESTING,
        FileKind.DOCS: ToolDomain.DOCUMENTATION,
        FileKind.CODE: ToolDomain.CODE,
    }.get(kind, ToolDomain.FILESYSTEM)


# What touching a file of each kind says about the session, by what was done to it.
_FILE_SIGNALS: dict[ToolIntent, dict[FileKind, dict[str, float]]] = {
    ToolIntent.READ: {
        FileKind.TEST: {"exploring": 0.4, "reviewing": 0.3, "testing": 0.2},
        FileKind.DOCS: {"exploring": 0.5, "reviewing": 0.2},
        FileKind.CONFIG: {"exploring": 0.4, "reviewing": 0.2, "configuring": 0.2},
        FileKind.CODE: {"exploring": 0.5, "reviewing": 0.3},
        FileKind.OTHER: {"exploring": 0.5, "reviewing": 0.2},
    },
    ToolIntent.CREATE: {
        FileKind.TEST: {"testing": 0.7, "building": 0.2},
        FileKind.DOCS: {"documenting": 0.8},
        FileKind.CONFIG: {"configuring": 0.7, "building": 0.1},
        FileKind.CODE: {"building": 0.7},
        FileKind.OTHER: {"building": 0.4},
    },
    ToolIntent.MODIFY: {
        FileKind.TEST: {"testing": 0.6, "fixing": 0.2},
        FileKind.DOCS: {"documenting": 0.7},
        FileKind.CONFIG: {"configuring": 0.7, "fixing": 0.2},
        FileKind.CODE: {"building": 0.3, "fixing": 0.3, "refactoring": 0.3},
        FileKind.OTHER: {"building": 0.2, "fixing": 0.2, "refactoring": 0.2},
    },
    ToolIntent.DELETE: {
        FileKind.TEST: {"testing": 0.3, "refactoring": 0.3},
        FileKind.DOCS: {"documenting": 0.3, "refactoring": 0.2},
        FileKind.CONFIG: {"configuring": 0.5, "refactoring": 0.1},
        FileKind.CODE: {"refactoring": 0.4, "fixing": 0.1},
        FileKind.OTHER: {"refactoring": 0.3},
    },
}


def file_signals(intent: ToolIntent, kind: FileKind) -> dict[str, float]:
    """Signals for reading, creating, modifying or deleting a file of `kind`."""
    return dict(_FILE_SIGNALS[intent][kind])
