"""`store_in_graph: false`: summaries kept as JSON files instead of graph records, one per session
(`<folder>/<group_id>/<session_id>.json`, redacted as the graph writer redacts), with the same
results as the graph writer so that the run, its report and its ledger do not change."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from graphiti_session_tracking.graph.schema import resolve_group_id
from graphiti_session_tracking.graph.writer import WriteResult
from graphiti_session_tracking.private_files import private_folder, write_private
from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.summary import EnhancedSessionSummary
from graphiti_session_tracking.summary.redaction import redact_summary


class SummaryFiles:
    """A writer into a folder: a re-written session gets the next summary_version."""

    def __init__(self, folder: Path, redactor: Redactor) -> None:
        self.folder = folder.expanduser()
        self.redactor = redactor

    async def ingest_many(
        self,
        summaries: Sequence[EnhancedSessionSummary],
        group_id: str | None = None,
        *,
        on_batch: Callable[[list[tuple[int, WriteResult]]], None] | None = None,
    ) -> list[WriteResult]:
        results = []
        for index, summary in enumerate(summaries):
            result = self._write(redact_summary(summary, self.redactor), resolve_group_id(summary, group_id))
            if on_batch is not None:
                on_batch([(index, result)])
            results.append(result)
        return results

    def _write(self, summary: EnhancedSessionSummary, group: str) -> WriteResult:
        path = private_folder(self.folder / group) / f"{summary.session_id}.json"
        version, status = 1, "created"
        if path.is_file():
            try:
                before = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                before = {}
            version, status = int(before.get("summary_version") or 1) + 1, "replaced"
        data = summary.model_dump(mode="json", exclude_none=True) | {"summary_version": version}
        write_private(path, json.dumps(data, indent=2))  # whole or not at all, 0600
        return WriteResult(summary.session_id, group, status, version, 0, 0)
