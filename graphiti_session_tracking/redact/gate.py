"""The one gate on the way out: every text the tool shows a person or hands to Claude or an LLM —
query and search rows, MCP answers, the recap and what SessionStart prints, `summarize` output,
logs — passes `Gate.text` (or `Gate.data` for rows and answers) on its way out.

Two things happen there, whatever the text's origin (a graph written by an older version with
fewer rules, a ledger state of an older format, a raw transcript re-read):

- secrets are redacted with the current rules (redactor.py);
- control characters are removed: terminal escape sequences (an OSC sequence sets the terminal's
  title, a CSI one moves the cursor or hides text), other C0/C1 controls, and the Unicode
  direction overrides that make text read differently from what it is. Newlines and tabs stay.

Redaction is idempotent, so text redacted on the way in passes unchanged; what it costs on rows
already clean is measured by bench/redact.py. Rows a caller knows were written redacted by these
very rules (the session's `redaction` stamp equals `Redactor.signature`) only lose their control
characters: redacting them again would change nothing and cost most of a large query's time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .signature import rules_signature

if TYPE_CHECKING:
    from .redactor import Redactor

__all__ = ["Gate", "strip_controls"]

# ESC-introduced sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and two-character ones.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def strip_controls(text: str) -> str:
    """`text` without escape sequences and control characters (newlines, tabs and `\\r\\n` kept)."""
    if text.isprintable():
        return text
    return _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))


# Fields whose values the tool made (ids, times, groups): passed as they are when they look it.
_OURS = frozenset(
    {
        "uuid",
        "session_id",
        "group_id",
        "valid_at",
        "invalid_at",
        "started_at",
        "ended_at",
        "created_at",
        "first_seen",
        "last_seen",
        "until",
        "last_modified_at",
    }
)
_ID = re.compile(r"[A-Za-z0-9_:.+-]{1,64}")


class Gate:
    """Redaction and control-character removal for everything leaving the tool."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self._redactor = redactor
        # The stamp of the rules this gate redacts with, known before they are compiled: rows a
        # query finds stamped with it only lose their controls, and the patterns (tens of
        # milliseconds to compile) are never needed.
        self.signature = redactor.signature if redactor is not None else rules_signature()

    @property
    def redactor(self) -> Redactor:
        if self._redactor is None:
            from .redactor import Redactor

            self._redactor = Redactor()
        return self._redactor

    def text(self, text: str) -> str:
        return strip_controls(self.redactor.redact(text)) if text else text

    def data(self, value: Any, *, redacted: bool = False) -> Any:
        """A copy of rows, answers or any JSON-like value with every string passed through
        `text`; keys that are field names stay, a string under a secret-looking key is a value.
        `redacted`: written redacted by these same rules (see the module's note): controls only."""
        if redacted:
            return _controls_only(value)
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {key: self._field(key, item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(item) for item in value]
        return value

    def _field(self, key: Any, item: Any) -> Any:
        if key in _OURS and isinstance(item, str) and _ID.fullmatch(item):
            return item  # an id or time the tool wrote itself
        if isinstance(item, str) and isinstance(key, str):
            return strip_controls(self.redactor.redact_value(item, key)) if item else item
        return self.data(item)


def _controls_only(value: Any) -> Any:
    """`value` with control characters stripped from its strings. This walks every field of every
    row of a large query (10,000 rows, 16 fields each), so a row's printable strings and numbers
    are kept without a call, and an ABC check comes last (it is slow)."""
    if isinstance(value, str):
        return strip_controls(value)
    if type(value) is dict:
        return {
            key: item
            if (type(item) is str and item.isprintable()) or type(item) in _SCALARS
            else _controls_only(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_controls_only(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _controls_only(item) for key, item in value.items()}
    return value


_SCALARS = frozenset({int, float, bool, type(None)})
