"""Reading a command line the way a shell does: heredocs, quoting, operators, segments, and the
wrappers (sudo, timeout, env, …) that run another program."""

from __future__ import annotations

import posixpath
import re
import shlex

from .vocabulary import Segment

# --- parsing ------------------------------------------------------------------------------

_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATOR_CHARS = frozenset("();<>|&\n")
_FALLBACK_TOKENS = re.compile(r"&&|\|\||[|;&\n()]|[<>]+&?\d*|[^\s|;&()<>]+")
_DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


def strip_heredocs(command: str) -> str:
    """Drop here-document bodies: their text is data, and an apostrophe in it would break shlex."""
    lines = command.split("\n")
    out: list[str] = []
    pending: list[str] = []
    for line in lines:
        if pending:
            if line.strip() == pending[0]:
                pending.pop(0)
            continue
        out.append(line)
        pending.extend(m.group(2) for m in _HEREDOC.finditer(line) if not line[m.start() :].startswith("<<<"))
    return "\n".join(out)


# `find … \( … \) -exec … \;`: escaped operator characters are words, not operators. They are
# swapped for private-use characters before lexing and restored in the segments' words.
_PROTECTED = {c: chr(0xE000 + i) for i, c in enumerate(sorted(_OPERATOR_CHARS - {"\n"}))}
_RESTORE = str.maketrans({v: k for k, v in _PROTECTED.items()})


def _protect_escapes(text: str) -> str:
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and i + 1 < len(text):
                out.append(text[i : i + 2])
                i += 2
                continue
        elif char in "'\"":
            quote = char
        elif char == "\\" and i + 1 < len(text) and text[i + 1] in _PROTECTED:
            out.append(_PROTECTED[text[i + 1]])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def tokenize(command: str) -> tuple[list[str], bool]:
    """shlex tokens with shell operators as their own tokens; (tokens, parsed cleanly).

    Unbalanced quotes fall back to a plain split, so a broken line is still judged (with less
    confidence) rather than dropped.
    """
    text = _protect_escapes(strip_heredocs(command.replace("\\\n", " ")))
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    lexer.commenters = ""
    try:
        return list(lexer), True
    except ValueError:
        tokens = [t.strip("'\"") for t in _FALLBACK_TOKENS.findall(text)]
        return [t for t in tokens if t], False


def _is_operator(token: str) -> bool:
    return bool(token) and all(c in _OPERATOR_CHARS for c in token)


def split_segments(tokens: list[str]) -> list[Segment]:
    """Cut tokens into simple commands at `| || && ; & ( )` and newlines; keep redirect targets."""
    segments: list[Segment] = []
    current = Segment(words=[])
    in_comment = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _is_operator(token) and ("<" in token or ">" in token):
            if current.words and current.words[-1].isdigit():
                current.words.pop()  # the fd of `2>&1`
            if token.startswith("<<") and not token.startswith("<<<"):
                i += 2  # heredoc operator and its delimiter (the body is already gone)
                continue
            target = tokens[i + 1] if i + 1 < len(tokens) and not _is_operator(tokens[i + 1]) else None
            if target is not None and ">" in token and not target.isdigit() and target not in _DEVICES:
                current.writes.append(target)
            i += 2 if target is not None else 1
            continue
        if _is_operator(token):
            if current.words or current.writes:
                segments.append(current)
            current = Segment(words=[], piped="|" in token and "||" not in token)
            in_comment = in_comment and "\n" not in token
            i += 1
            continue
        if token.startswith("#") and not current.words:
            in_comment = True
        if not in_comment and token != "$":
            current.words.append(token.translate(_RESTORE))
        i += 1
    if current.words or current.writes:
        segments.append(current)
    return segments


# --- unwrapping -----------------------------------------------------------------------------

# Wrappers that run the rest of the line, with their options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-U", "-r", "-t", "-D"}),
    "doas": frozenset({"-u", "-C"}),
    "time": frozenset({"-f", "-o"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-a", "-E", "-s"}),
    "watch": frozenset({"-n", "-d"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "unbuffer": frozenset(),
    "caffeinate": frozenset(),
    "chronic": frozenset(),
    "then": frozenset(),
    "do": frozenset(),
    "else": frozenset(),
    "!": frozenset(),
    "{": frozenset(),
}
_TAKES_POSITIONAL = {"timeout": 1, "gtimeout": 1}  # `timeout 60 cmd`: the duration


def _skip_options(words: list[str], value_flags: frozenset[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            return words[i + 1 :]
        i += 2 if words[i] in value_flags else 1
    return words[i:]


def unwrap(words: list[str]) -> tuple[list[str], list[str]]:
    """Drop env assignments and wrappers: (the real command's words, what was dropped)."""
    dropped: list[str] = []
    while words:
        head = words[0]
        if _ASSIGNMENT.match(head):
            dropped.append(head.split("=", 1)[0] + "=…")
            words = words[1:]
        elif head in _WRAPPERS:
            if head == "command" and len(words) > 1 and words[1] in ("-v", "-V"):
                return words, dropped  # `command -v x` asks where x is
            rest = _skip_options(words[1:], _WRAPPERS[head])
            while head == "env" and rest and _ASSIGNMENT.match(rest[0]):
                rest = rest[1:]
            if not rest:
                return words, dropped  # `env`, `time` alone are commands of their own
            dropped.append(head)
            words = rest
        elif head in _TAKES_POSITIONAL:
            dropped.append(head)
            rest = _skip_options(words[1:], frozenset({"-s", "-k", "--signal", "--kill-after"}))
            words = rest[_TAKES_POSITIONAL[head] :]
        else:
            break
    return words, dropped


def program_name(word: str) -> str:
    """`/usr/bin/python3.12` → `python`, `.venv/bin/pytest` → `pytest`, `pip3` → `pip`."""
    base = posixpath.basename(word) if "/" in word else word
    base = re.sub(r"^(python|pip|pypy|pydoc|idle)[\d.]*$", r"\1", base)
    return base
