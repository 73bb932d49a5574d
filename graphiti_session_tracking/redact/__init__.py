"""Secrets and hostile text never leave: redaction (redactor.py, on the known token formats of
tokens.py) and the one output gate every way out passes through (gate.py).

The redactor's patterns are compiled when it is first asked for, not when the gate is: a query
whose rows today's rules already redacted never needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .gate import Gate, strip_controls
from .signature import RULES_VERSION

if TYPE_CHECKING:
    from .redactor import Redactor, is_secret_key, redact_mapping, redact_pasted_tokens

__all__ = [
    "RULES_VERSION",
    "Gate",
    "Redactor",
    "is_secret_key",
    "redact_mapping",
    "redact_pasted_tokens",
    "strip_controls",
]

_LAZY = frozenset({"Redactor", "is_secret_key", "redact_mapping", "redact_pasted_tokens"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import redactor

        return getattr(redactor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
