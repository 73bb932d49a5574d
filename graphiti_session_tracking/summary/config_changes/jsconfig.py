"""JavaScript and TypeScript config modules (`vite.config.ts`, `tailwind.config.js`,
`eslint.config.mjs`, …): the settings are the members of the object the module exports.

No JavaScript engine is run and no parser library is needed for this much: the text is scanned
with its strings and comments masked, the exported value is found (`export default {…}`,
`export default defineConfig({…})`, `module.exports = {…}`, or a `const` the module exports by
name), and its object literal is split at its top-level commas. Nested object literals become
dotted keys (`server.port`); any other value (an array, a call, an expression) is its source
text with whitespace collapsed. An exported value that is not an object with members (a flat
config's array, an empty object) is one setting named by its `const` (`eslintConfig`), since
that is how a reader names it. A fragment of an edit, with no export, is read as object members
when its brackets balance.
"""

from __future__ import annotations

import itertools
import re

from .settings import Settings, _unquote

_EXPORT = re.compile(r"\bexport\s+default\s+|\bmodule\.exports\s*=\s*")
# What may stand between the export and its value: a call (`defineConfig(`), an arrow (`() => (`),
# `async`, a type assertion's parentheses.
_PREFIX = re.compile(
    r"\s*(?:(?:async\s*)?(?:\([^(){}\[\]]*\)|[\w$]+)\s*=>\s*|[\w$.]+\s*(?:<[^<>()]*>)?\s*|\()*\s*\(?\s*\Z"
)
_ARROW = re.compile(r"\s*\)\s*(?::[^=]*)?=>\s*")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_KEY = re.compile(r"""\s*(?:([A-Za-z_$][\w$]*)|"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|(\d+))\s*:""")
_OPEN = {"{": "}", "[": "]", "(": ")"}
_AFTER_OPEN = re.compile(r"([\[{(]) (?=\S)")
_TRAILING_COMMA = re.compile(r",? ([\]})])")
_EXPORTS_READ = 3
_DEPTH = 6  # nested objects read as dotted keys this deep; deeper is one value's text


def parse_js_config(text: str) -> Settings:
    """The settings of a JS/TS config module, or of an edited fragment of its members."""
    plain, masked = _mask(text)
    start = _exported_value(masked)
    if start is None:
        if masked.strip().startswith("{"):
            start = masked.index("{")
        elif _balanced(masked):
            return _members(plain, masked, 0, len(masked), "", 0)
        else:
            return {}
    name, at = start if isinstance(start, tuple) else ("default", start)
    end = _close(masked, at)
    if end is None:
        return {}
    if masked[at] == "{":
        settings = _members(plain, masked, at + 1, end, "", 0)
        if settings:
            return settings
    return {name: _value(plain[at : end + 1])}


def _exported_value(masked: str) -> int | tuple[str, int] | None:
    """Where the exported value starts (its `{` or `[`), with the `const` it was named by. A module
    has one default export: past the first few, what is scanned is not a config module."""
    for m in itertools.islice(_EXPORT.finditer(masked), _EXPORTS_READ):
        rest = masked[m.end() :]
        named = _NAME.match(rest)
        if named and not rest[named.end() :].lstrip().startswith(("(", "<", ".", "=>")):
            defined = re.search(
                rf"\b(?:const|let|var)\s+{re.escape(named.group(0))}\s*(?::[^=]*)?=\s*", masked
            )
            if defined is not None:
                found = _value_start(masked, defined.end())
                if found is not None:
                    return named.group(0), found
            continue
        found = _value_start(masked, m.end())
        if found is not None:
            return found
    return None


def _value_start(masked: str, at: int) -> int | None:
    """The first `{` or `[` after `at`, when only a call or arrow prefix stands before it; an
    arrow function's destructured parameters (`({ mode }) => ({…})`) are passed over."""
    index = at
    while index < min(len(masked), at + 200):
        if masked[index] in "{[":
            if not _PREFIX.match(masked[at:index]):
                return None
            close = _close(masked, index)
            arrow = _ARROW.match(masked, close + 1) if close is not None else None
            if arrow is None:
                return index
            at = index = arrow.end()
            continue
        index += 1
    return None


def _members(plain: str, masked: str, start: int, end: int, prefix: str, depth: int) -> Settings:
    """The `key: value` members between `start` and `end`, split at the top-level commas."""
    settings: Settings = {}
    for lo, hi in _top_level_parts(masked, start, end):
        part = masked[lo:hi].strip()
        if not part or part.startswith("..."):
            continue  # a spread names no setting of its own
        key_match = _KEY.match(masked, lo, hi)
        if key_match is None:
            method = _NAME.match(part)
            if method and method.group(0) == part:
                settings[prefix + part] = part  # `{ plugins }`
            elif method and part[method.end() :].lstrip().startswith("("):
                settings[prefix + method.group(0)] = "(function)"  # `setup(app) { … }`
            continue
        group = next(g for g in range(1, 5) if key_match.group(g) is not None)
        key = plain[key_match.start(group) : key_match.end(group)]
        value_lo = key_match.end()
        if masked[value_lo:hi].lstrip().startswith("{") and depth < _DEPTH:
            brace = masked.index("{", value_lo)
            close = _close(masked, brace)
            if close is not None and not masked[close + 1 : hi].strip():
                nested = _members(plain, masked, brace + 1, close, f"{prefix}{key}.", depth + 1)
                settings.update(nested or {prefix + key: "{}"})
                continue
        settings[prefix + key] = _value(plain[value_lo:hi])
    return settings


def _top_level_parts(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    parts, depth, lo = [], 0, start
    for index in range(start, end):
        char = masked[index]
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append((lo, index))
            lo = index + 1
    parts.append((lo, end))
    return parts


def _value(source: str) -> str:
    """A value's source text on one line, as a reader writes it (`["./src/**/*.ts"]`, not the
    formatter's `[ "./src/**/*.ts", ]`); a lone string literal without its quotes."""
    flat = _TRAILING_COMMA.sub(r"\1", _AFTER_OPEN.sub(r"\1", " ".join(source.split())))
    if flat.endswith(";"):
        flat = flat[:-1].rstrip()
    if len(flat) >= 2 and flat[0] == flat[-1] == "`" and "${" not in flat:
        return flat[1:-1]
    return _unquote(flat)


def _close(masked: str, at: int) -> int | None:
    """The index of the bracket that closes the one at `at`."""
    stack = []
    for index in range(at, len(masked)):
        char = masked[index]
        if char in _OPEN:
            stack.append(_OPEN[char])
        elif char in "}])":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index
    return None


def _balanced(masked: str) -> bool:
    depth = 0
    for char in masked:
        depth += char in "{[("
        depth -= char in "}])"
        if depth < 0:
            return False
    return depth == 0


def _mask(text: str) -> tuple[str, str]:
    """`text` without its comments, and `text` with the insides of its strings, template literals
    and comments also blanked, so brackets and commas in them are not read as structure (both
    the same length as `text`; the quotes themselves stay)."""
    plain, masked = list(text), list(text)
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char == "/" and text.startswith(("//", "/*"), index):
            end = text.find("\n" if text[index + 1] == "/" else "*/", index + 2)
            end = length if end < 0 else end if text[index + 1] == "/" else end + 2
            blank = [c if c == "\n" else " " for c in text[index:end]]
            plain[index:end] = masked[index:end] = blank
            index = end
        elif char in "\"'`":
            end = index + 1
            while end < length and text[end] != char:
                if text[end] == "\\":
                    end += 1
                elif text[end] == "\n" and char != "`":
                    break  # an unclosed quote ends with its line
                end += 1
            inside = min(end, length)
            masked[index + 1 : inside] = [" "] * (inside - index - 1)
            index = end + 1
        else:
            index += 1
    return "".join(plain), "".join(masked)
