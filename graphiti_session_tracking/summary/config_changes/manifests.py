"""Parsers of project manifests: Maven and MSBuild project files, requirements.txt, Dockerfiles
(dependencies and instructions as settings)."""

from __future__ import annotations

import re

from .settings import Settings, _strip_comment, _unquote


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
