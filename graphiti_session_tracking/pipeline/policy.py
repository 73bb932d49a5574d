"""What the configuration keeps out of a run: projects (`excluded_paths`), old transcripts
(`keep_length_days`) and summary fields (`include_decisions`, `include_errors_resolved`)."""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from graphiti_session_tracking.transcripts.agents import source_state

if TYPE_CHECKING:
    from graphiti_session_tracking.summary import EnhancedSessionSummary


@dataclass(frozen=True)
class Policy:
    excluded_paths: tuple[str, ...] = ()
    base: Path | None = None  # relative entries of excluded_paths are under it (watch_path)
    keep_days: int | None = None
    include_decisions: bool = True
    include_errors: bool = True

    def too_old(self, source: Path, now: float | None = None) -> bool:
        """Not modified within `keep_days` (a missing file is not ours to judge here)."""
        if self.keep_days is None:
            return False
        try:
            modified = source_state(source).mtime
        except (OSError, ValueError):  # ValueError: an OpenCode database that cannot be read
            return False
        return (now if now is not None else time.time()) - modified > self.keep_days * 86_400

    def excludes(self, path: str | Path | None) -> bool:
        """`path` (a project folder or a transcript) is one of `excluded_paths`, or under one."""
        if not path or not self.excluded_paths:
            return False
        target = PurePath(Path(path).expanduser()).as_posix()
        for entry in self.excluded_paths:
            pattern = Path(entry).expanduser()
            if not pattern.is_absolute() and not entry.startswith("*") and self.base is not None:
                pattern = self.base.expanduser() / pattern
            text = PurePath(pattern).as_posix().rstrip("/")
            if any(ch in text for ch in "*?["):
                # `**/x/**` also matches the folder x itself, and `*` may cross folders (fnmatch).
                if fnmatch.fnmatchcase(target, text) or fnmatch.fnmatchcase(target + "/", text):
                    return True
                if text.endswith("/**") and fnmatch.fnmatchcase(target, text[:-3]):
                    return True
            elif target == text or target.startswith(text + "/"):
                return True
        return False

    def trim(self, summary: EnhancedSessionSummary) -> EnhancedSessionSummary:
        """The summary without the fields the configuration leaves out."""
        update: dict[str, object] = {}
        if not self.include_decisions and summary.key_decisions:
            update["key_decisions"] = []
        if not self.include_errors and summary.errors_resolved:
            update["errors_resolved"] = []
        return summary.model_copy(update=update) if update else summary


NO_POLICY = Policy()
