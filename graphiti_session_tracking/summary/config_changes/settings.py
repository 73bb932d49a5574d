"""The flat `setting → value` map every parser returns, and the helpers the parsers share
(quotes, trailing comments, nesting flattened to dotted keys)."""

from __future__ import annotations

import json
import re
from typing import Any

Settings = dict[str, str]


class Sectioned(dict[str, str]):
    """Settings of a format with section headers (TOML tables, INI sections): `sections` are
    the headers, so a new file is summarized per table (`tool.mypy`), not per first word."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: set[str] = set()


_QUOTED_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'[^\']*\'')


# --- parsers: text → {setting: value}, forgiving, fragments welcome ------------------------------
#
# A whole file is read by the format's own library first (tomllib, PyYAML, configparser, json);
# an edited fragment or a file the library refuses falls back to a forgiving line scan.


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _strip_comment(value: str, markers: str = "#") -> str:
    """A value without a trailing comment (` # …`) that lies outside quotes."""
    masked = _QUOTED_STRINGS.sub(lambda m: "x" * len(m.group(0)), value)
    for marker in markers:
        at = masked.find(" " + marker)
        if at >= 0:
            value, masked = value[:at], masked[:at]
    return value.strip()


def _balance(text: str) -> int:
    masked = _QUOTED_STRINGS.sub("", text)
    return masked.count("[") + masked.count("{") - masked.count("]") - masked.count("}")


def _flatten(value: Any, path: str, out: Settings) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", out)
    elif path:
        out[path] = value if isinstance(value, str) else json.dumps(value)
