"""What a run did, source by source: `ingest`, `watch` and `migrate` report with the same keys."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphiti_session_tracking.graph.writer import WriteResult


@dataclass
class WriteReport:
    """What a run put into the graph; `ingest` and `migrate` report with the same keys."""

    sources_seen: int = 0
    skipped: int = 0  # unchanged (or, for migrate, superseded)
    ingested: int = 0  # written: created or replaced
    failed: list[dict[str, str]] = field(default_factory=list)
    nodes_written: int = 0
    edges_written: int = 0
    problems: list[str] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def add(self, source: str, result: WriteResult, sources: list[str] | None = None) -> None:
        """Count one session's write (`sources`: every transcript merged into it, when several)."""
        if result.status == "unchanged":
            self.skipped += 1
        else:
            self.ingested += 1
        self.nodes_written += result.nodes_written
        self.edges_written += result.edges_written
        self.sessions.append(
            {"source": source, **({"sources": sources} if sources else {}), **asdict(result)}
        )

    def add_duplicate(self, source: str, of: str, session_id: str, group_id: str | None) -> None:
        """A source skipped because its bytes equal another transcript's of the same session."""
        self.skipped += 1
        self.sessions.append(
            {
                "source": source,
                "session_id": session_id,
                "group_id": group_id,
                "status": "duplicate",
                "duplicate_of": of,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestReport(WriteReport):
    llm_calls: int = 0
    read_incrementally: int = 0
    vectors_backfilled: int = 0  # stored sessions given the local embedder's vectors this run
    # Kept out by the configuration (excluded_paths, keep_length_days): "<source>: <why>".
    excluded: list[str] = field(default_factory=list)
