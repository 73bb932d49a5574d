"""The persistent classification cache: a versioned JSON file shared by every process.

Only verdicts an LLM produced are stored (heuristics are cheaper to recompute than to load, and
improve with the code). Two keys per verdict: the exact call (tool name + normalised parameters,
or the full command line) and the pattern (tool name, or the unknown executable of a command).

Writes are atomic (temp file in the same folder, then os.replace) and serialised between
processes by an fcntl lock on `<file>.lock`; under the lock the file is re-read and merged, so
two processes saving at once both keep their entries. A corrupt, unreadable or foreign file is
reported (logging warning + `problems`), moved aside to `<file>.bad`, and replaced, never fatal.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graphiti_session_tracking.private_files import open_private, private_folder, write_private

from .model import Verdict

log = logging.getLogger(__name__)

CACHE_VERSION = 1


def default_cache_path() -> Path:
    """`~/.graphiti/tool_classification_cache.json`, resolved when called (HOME may change)."""
    return Path.home() / ".graphiti" / "tool_classification_cache.json"


def params_digest(params: Mapping[str, Any] | None) -> str:
    """A stable digest of a call's parameters: sorted keys, None values dropped."""
    cleaned = {k: v for k, v in sorted((params or {}).items()) if v is not None}
    text = json.dumps(cleaned, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def tool_keys(name: str, params: Mapping[str, Any] | None) -> tuple[str, str]:
    """(exact key, pattern key) of a named tool's call."""
    return f"tool:{name}:{params_digest(params)}", f"tool:{name}"


def bash_exact_key(command: str) -> str:
    return f"bash:{params_digest({'command': command.strip()})}"


def bash_pattern_key(executable: str) -> str:
    return f"bash-exe:{executable}"


class CacheError(Exception):
    """A cache file that cannot be used: not JSON, wrong version, or wrong shape."""


class ClassificationCache:
    """Exact and pattern verdicts in memory, optionally backed by a JSON file (`path`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path.expanduser() if path is not None else None  # config files say `~/…`
        self.problems: list[str] = []
        self.exact: dict[str, Verdict] = {}
        self.pattern: dict[str, Verdict] = {}
        self._dirty_exact: set[str] = set()
        self._dirty_pattern: set[str] = set()
        if self.path is not None:
            self._load_initial(self.path)

    # --- lookups --------------------------------------------------------------------------------
    def get_exact(self, key: str) -> Verdict | None:
        return self.exact.get(key)

    def get_pattern(self, key: str) -> Verdict | None:
        return self.pattern.get(key)

    def put(self, exact_key: str, pattern_key: str, verdict: Verdict) -> None:
        self.exact[exact_key] = verdict
        self.pattern[pattern_key] = verdict
        self._dirty_exact.add(exact_key)
        self._dirty_pattern.add(pattern_key)

    @property
    def dirty(self) -> bool:
        return bool(self._dirty_exact or self._dirty_pattern)

    def __len__(self) -> int:
        return len(self.exact)

    # --- persistence ----------------------------------------------------------------------------
    def save(self) -> bool:
        """Merge our new entries into the file (under the lock); False (and a problem) on failure."""
        if self.path is None or not self.dirty:
            return True
        try:
            with self._locked(self.path):
                on_disk = self._read_or_report(self.path)
                exact = {**on_disk[0], **{k: self.exact[k] for k in self._dirty_exact}}
                pattern = {**on_disk[1], **{k: self.pattern[k] for k in self._dirty_pattern}}
                self._write(self.path, exact, pattern)
        except OSError as exc:
            self._problem(f"{self.path}: cannot write the tool classification cache: {exc}")
            return False
        # Entries other processes saved meanwhile become ours too.
        self.exact.update(exact)
        self.pattern.update(pattern)
        self._dirty_exact.clear()
        self._dirty_pattern.clear()
        return True

    def _load_initial(self, path: Path) -> None:
        try:
            if not path.exists():
                return
            with self._locked(path):
                self.exact, self.pattern = self._read_or_report(path, replace=True)
        except OSError as exc:
            self._problem(f"{path}: cannot read the tool classification cache: {exc}")

    def _read_or_report(
        self, path: Path, replace: bool = False
    ) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
        """The file's entries; a bad file is reported, moved aside and (with `replace`) rewritten."""
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}, {}
        except (OSError, UnicodeDecodeError) as exc:
            self._problem(f"{path}: unreadable tool classification cache ({exc}); starting a new one")
            self._set_aside(path, replace)
            return {}, {}
        try:
            return self._parse(path, raw)
        except CacheError as exc:
            self._problem(f"{path}: {exc}; the old file is kept as {path.name}.bad and replaced")
            self._set_aside(path, replace)
            return {}, {}

    def _parse(self, path: Path, raw: str) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise CacheError(f"not valid JSON ({exc.args[0] if exc.args else exc})") from exc
        if not isinstance(data, dict):
            raise CacheError("not a tool classification cache (expected a JSON object)")
        version = data.get("version")
        if version != CACHE_VERSION:
            raise CacheError(f"unsupported cache version {version!r} (expected {CACHE_VERSION})")
        sections: list[dict[str, Verdict]] = []
        dropped = 0
        for section in ("exact", "pattern"):
            entries = data.get(section, {})
            if not isinstance(entries, dict):
                raise CacheError(f"{section!r} is not an object")
            good: dict[str, Verdict] = {}
            for key, value in entries.items():
                try:
                    good[key] = Verdict.model_validate(value)
                except ValidationError:
                    dropped += 1
            sections.append(good)
        if dropped:
            self._problem(f"{path}: dropped {dropped} invalid cache entr{'y' if dropped == 1 else 'ies'}")
        return sections[0], sections[1]

    def _set_aside(self, path: Path, replace: bool) -> None:
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".bad"))
        if replace:
            self._write(path, {}, {})

    @staticmethod
    def _write(path: Path, exact: Mapping[str, Verdict], pattern: Mapping[str, Verdict]) -> None:
        payload = {
            "version": CACHE_VERSION,
            "exact": {k: v.model_dump(mode="json") for k, v in sorted(exact.items())},
            "pattern": {k: v.model_dump(mode="json") for k, v in sorted(pattern.items())},
        }
        write_private(path, json.dumps(payload, indent=1, ensure_ascii=False), fsync=True)

    @staticmethod
    @contextlib.contextmanager
    def _locked(path: Path) -> Iterator[None]:
        """Exclusive lock on `<file>.lock` (the data file itself is replaced, so cannot hold one)."""
        private_folder(path.parent)
        with open_private(path.with_name(path.name + ".lock"), "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _problem(self, message: str) -> None:
        log.warning("%s", message)
        self.problems.append(message)
