"""The canned Cypher queries (graph/cypher/*.cypher), run over one group or every group."""

from __future__ import annotations

from importlib import resources
from typing import Any

from .backends import Backend

QUERY_NAMES = ("files",)

# How rows from several groups are ordered once merged: (key, descending) pairs per query.
_ORDER: dict[str, list[tuple[str, bool]]] = {"files": [("path", False), ("sessions", True)]}


def cypher(name: str) -> str:
    """The text of a canned query, comments included (they say what it answers)."""
    if name not in QUERY_NAMES:
        raise ValueError(f"unknown query {name!r}; known: {', '.join(QUERY_NAMES)}")
    return resources.files(__package__).joinpath("cypher", f"{name}.cypher").read_text(encoding="utf-8")


def _plain(value: Any) -> Any:
    """Neo4j temporal values become ISO strings, like FalkorDB's, so rows look the same everywhere."""
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        native = to_native()
        return native.isoformat() if hasattr(native, "isoformat") else native
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


async def run_query(
    backend: Backend, name: str, group_id: str | None = None, **filters: Any
) -> list[dict[str, Any]]:
    """Rows of a canned query; without a group id, over every group in the database."""
    text = cypher(name)
    params = {"group_id": group_id, **filters}
    groups: list[str | None]
    if group_id is not None:
        groups = [group_id]
    elif backend.graph_per_group:
        groups = list(await backend.list_groups())
    else:
        groups = [None]  # one Neo4j database holds every group; the query's filter is off
    rows: list[dict[str, Any]] = []
    for group in groups:
        driver = backend.driver if group is None else await backend.driver_for(group)
        records, _, _ = await driver.execute_query(text, **params)
        rows.extend({k: _plain(v) for k, v in dict(r).items()} for r in records)
    for key, descending in _ORDER.get(name, []):
        rows.sort(key=lambda row: (row.get(key) is None, row.get(key)), reverse=descending)
    return rows
