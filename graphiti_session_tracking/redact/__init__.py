"""Secrets and hostile text never leave: redaction (redactor.py, on the known token formats of
tokens.py) and the one output gate every way out passes through (gate.py)."""

from .gate import Gate, strip_controls
from .redactor import RULES_VERSION, Redactor, is_secret_key, redact_mapping, redact_pasted_tokens

__all__ = [
    "RULES_VERSION",
    "Gate",
    "Redactor",
    "is_secret_key",
    "redact_mapping",
    "redact_pasted_tokens",
    "strip_controls",
]
