"""Parsers of `key = value` formats: TOML (tables as sections), INI and its kin (setup.cfg,
.editorconfig, .flake8) and `.env` / `.properties` files."""

from __future__ import annotations

import configparser
import re
import tomllib
from collections.abc import Iterator
from typing import Any

from .settings import Sectioned, Settings, _balance, _flatten, _strip_comment, _unquote


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
