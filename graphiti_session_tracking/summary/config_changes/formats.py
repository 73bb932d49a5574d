"""Which files are configuration, and the parser that reads each: by name and folder, since JSON
and YAML are as often data as settings."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from .jsconfig import parse_js_config
from .keyvalue import parse_env, parse_ini, parse_toml
from .manifests import (
    parse_dockerfile,
    parse_gomod,
    parse_ignore,
    parse_plist,
    parse_requirements,
    parse_xml,
)
from .settings import Settings
from .yaml_json import parse_json, parse_yaml

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


# What git, Docker, npm and the formatters leave out: lists of patterns, one rule a line.
_IGNORE_FILES = frozenset(
    [
        ".gitignore",
        ".dockerignore",
        ".npmignore",
        ".prettierignore",
        ".eslintignore",
        ".gcloudignore",
        ".vercelignore",
    ]
)

# Config modules of the JavaScript tools (`vite.config.ts`, `.eslintrc.cjs`): their exported object
# is the settings. A module merely named config (`src/config.ts`) is application code.
_JS_CONFIG = re.compile(r"(?:\.config|^\.(?:eslintrc|prettierrc|stylelintrc|babelrc))\.[cm]?[jt]s\Z")


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
    if lower in _IGNORE_FILES:
        return parse_ignore
    if lower.startswith(".env") or lower.endswith((".env", ".properties")):
        return parse_env
    if lower.startswith("requirements") and lower.endswith((".txt", ".in")):
        return parse_requirements
    if lower.startswith(("dockerfile", "containerfile")) or lower.endswith(".dockerfile"):
        return parse_dockerfile
    if lower.endswith(".toml"):
        return parse_toml
    if lower == "go.mod":
        return parse_gomod
    if lower.endswith(".plist"):
        return parse_plist
    if _JS_CONFIG.search(lower):
        return parse_js_config
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
