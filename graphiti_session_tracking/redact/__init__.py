"""Secrets and hostile text never leave: redaction (redactor.py, on the known token formats of
tokens.py) and the one output gate every way out passes through (gate.py)."""

from .gate import Gate, strip_controls
from .redactor import Redactor, is_secret_key, redact_mapping, redact_pasted_tokens

# Raised when the rules take more than before: stores kept under older rules (the ingest ledger)
# pass the current ones once.
RULES_VERSION = 2

__all__ = [
    "RULES_VERSION",
    "Gate",
    "Redactor",
    "is_secret_key",
    "redact_mapping",
    "redact_pasted_tokens",
    "strip_controls",
]
