"""Passwords inside URIs (`bolt://neo4j:s3cret@host:7687`, `redis://:pw@host:6379`) masked in
any text we print or log. It sits at the bottom of the layers so every message, whatever layer
makes it, can be masked where it is made, and again at the last gates (the CLI's error line,
hooks.log)."""

from __future__ import annotations

import re

MASK = "***"

# scheme://user:password@ — the user may be empty; the password runs to the last `@` of the
# word (urllib splits user info at the last `@` too), so a raw `@`, `:` or `/` in it is still
# hidden. A `host:port/path@x` is masked as well: too much hidden, never too little.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*):(?P<password>\S+)@")


def mask_uri(text: str) -> str:
    """`text` with the password of every URI in it replaced by `***` (scheme, user, host and
    port kept: they say which server is meant). Idempotent."""
    return _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)
