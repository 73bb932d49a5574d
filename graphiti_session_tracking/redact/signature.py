"""Which redaction rules wrote a text, without compiling them: a query checks a session's stamp
against today's rules and redacts nothing when they agree, so it must not pay for the patterns."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

# Raised when the rules take more than before: stores kept under older rules (the ingest ledger)
# pass the current ones once, and a summary redacted under older ones is redacted again.
RULES_VERSION = 2


def rules_signature(extra_patterns: Sequence[tuple[str, str]] = (), allowlist: Sequence[str] = ()) -> str:
    """The stamp of a redactor with these settings (`Redactor.signature`)."""
    settings = repr((RULES_VERSION, tuple(extra_patterns), tuple(allowlist)))
    return hashlib.sha256(settings.encode("utf-8")).hexdigest()[:16]
