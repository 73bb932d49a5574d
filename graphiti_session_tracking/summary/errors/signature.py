"""What makes two errors the same error across sessions: the graph links an error to its earlier
hits by this signature."""

from __future__ import annotations

import re

from .lines import _CODE, _POSITION, _TASK_PREFIX

_SIGNATURE_NOISE = (
    (
        re.compile(
            r"(?:[A-Za-z]:)?[\w.@~+-]*(?:[\\/][\w.@~+-]+)+[\\/]?|\b[\w-]+\.[A-Za-z]{1,5}(?=[:('\"\s]|$)"
        ),
        "<path>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|\b[0-9a-f]{7,40}\b"
        ),
        "<id>",
    ),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
)


def error_signature(error: str) -> str:
    """What makes two errors the same error across sessions: its code or exception type, plus the
    message with paths, addresses, ids and numbers taken out: the same failure on another line,
    port or file is the same error; another missing module is not."""
    # (the task a runner ran it in, `[lint:go] `, is where it was seen, not what it is)
    line = _TASK_PREFIX.sub("", error.split(" (also: ", 1)[0].split(" / ", 1)[0], count=1)
    code = _CODE.search(line)
    message = _POSITION.sub("", line)
    for pattern, token in _SIGNATURE_NOISE:
        message = pattern.sub(token, message)
    message = " ".join(message.lower().split())
    return f"{code.group(0)} {message}" if code else message
