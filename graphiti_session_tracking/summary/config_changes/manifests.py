"""Parsers of project manifests: Maven and MSBuild project files, requirements.txt, go.mod,
Dockerfiles, Apple property lists (dependencies and instructions as settings)."""

from __future__ import annotations

import re
from typing import Any

from .settings import Sectioned, Settings, _flatten, _strip_comment, _unquote


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


def parse_ignore(text: str) -> Settings:
    """.gitignore and its kin: each pattern is a setting, its value the pattern (a line is the
    whole rule; `!keep.me` re-includes). Comments and blank lines are not rules."""
    return {rule: rule for line in text.splitlines() if (rule := line.strip()) and not rule.startswith("#")}


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


_GO_DIRECTIVE = re.compile(r"^(module|go|toolchain|godebug)\s+(\S.*)$")
_GO_BLOCK = re.compile(r"^(require|replace|exclude|retract|godebug)\s*\($")
_GO_LISTED = ("require", "replace", "exclude")


def parse_gomod(text: str) -> Settings:
    """go.mod: the module path, the Go version and toolchain, and each required, replaced or
    excluded module keyed by its path (`require.golang.org/x/net` = its version, ` (indirect)`
    when go marked it so), in a one-line directive or a `( … )` block alike. Each is a section of
    its own: the dots of a module path are no nesting."""
    settings = Sectioned()
    block = ""
    for raw in text.splitlines():
        line, _, comment = raw.partition("//")
        line = line.strip()
        if not line:
            continue
        if block:
            if line == ")":
                block = ""
            else:
                _go_entry(block, line, comment, settings)
            continue
        if m := _GO_BLOCK.match(line):
            block = m.group(1)
        elif m := _GO_DIRECTIVE.match(line):
            settings[m.group(1)] = _unquote(m.group(2).strip())
        elif (verb := line.split(None, 1)[0]) in _GO_LISTED and " " in line:
            _go_entry(verb, line.split(None, 1)[1], comment, settings)
    settings.sections.update(settings)
    return settings


def _go_entry(verb: str, entry: str, comment: str, settings: Settings) -> None:
    if verb not in _GO_LISTED:
        return
    if verb == "replace":
        source, _, target = entry.partition("=>")
        if target.strip():
            settings[f"replace.{source.split()[0]}"] = target.strip()
        return
    words = entry.split()
    if len(words) >= 2:
        indirect = " (indirect)" if comment.strip() == "indirect" else ""
        settings[f"{verb}.{_unquote(words[0])}"] = words[1] + indirect


def parse_plist(text: str) -> Settings:
    """An Apple property list (Info.plist, entitlements): each key with its value, nested
    dictionaries as dotted keys. A whole XML file is read by plistlib; an edited fragment by its
    `<key>` elements and the scalar value after each. Each top-level key is a section: its dots
    (`com.apple.security.cs.allow-jit`) are no nesting."""
    import plistlib
    from xml.parsers.expat import ExpatError

    try:
        loaded = plistlib.loads(text.encode("utf-8"))
    except (plistlib.InvalidFileException, ExpatError, ValueError, TypeError, AttributeError):
        loaded = None
    settings = Sectioned()
    if isinstance(loaded, dict):
        _flatten(_plain(loaded), "", settings)
        settings.sections.update(str(key) for key in loaded)
        return settings
    for m in _PLIST_PAIR.finditer(text):
        key = m.group(1).strip()
        settings[key] = m.group(3) if m.group(3) is not None else m.group(2)
        settings.sections.add(key)
    return settings


_PLIST_PAIR = re.compile(
    r"<key>([^<]+)</key>\s*(?:<(true|false)\s*/>|<(?:string|integer|real|date)>([^<]*)</(?:string|integer|real|date)>)"
)


def _plain(value: Any) -> Any:
    """plistlib's values as JSON would have them (dates and bytes as text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)
