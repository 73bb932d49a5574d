"""Sentences of assistant prose, shared by the deterministic extractors (errors, configs, decisions).

Assistant text is Markdown: code blocks, inline code, bullets, bold. The extractors look for
phrases ("because", "instead of") in what the assistant *said*, so code and quoted strings are
masked for matching, while the sentence kept for the summary is plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"),
    re.compile(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"),
)
_INLINE_CODE = re.compile(r"`+([^`]*)`+")
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")
# A sentence ends at . ! ? followed by space and something that can start a sentence.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(\[*_“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


@dataclass(frozen=True)
class Sentence:
    """`text`: plain sentence for the summary; `prose`: the same with code and quotes masked."""

    text: str
    prose: str


def cut(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to `limit` characters with an ellipsis only when longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def plain(text: str) -> str:
    """Markdown markup removed from one line: headings, list markers, links, emphasis, backticks."""
    text = _HEADING.sub("", text)
    text = _LIST_MARKER.sub("", text)
    text = _LINK.sub(r"\1", text)
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(1))
        return f"\ue000{len(spans) - 1}\ue001"

    text = _INLINE_CODE.sub(hold, text)  # code is left as written, only its backticks go
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    text = re.sub("\ue000(\\d+)\ue001", lambda m: spans[int(m.group(1))], text)
    return " ".join(text.split())


def masked(text: str) -> str:
    """Inline code and quoted strings replaced by a placeholder, so phrases inside them don't count."""
    return _QUOTED.sub("«…»", _INLINE_CODE.sub("«code»", text))


def prose_lines(text: str) -> list[str]:
    """The lines of `text` outside fenced code blocks, block quotes and tables."""
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        stripped = line.strip()
        if in_fence or not stripped or stripped.startswith((">", "|")):
            continue
        lines.append(line)
    return lines


def split_sentences(text: str) -> list[Sentence]:
    """Every sentence of the prose in `text`, in order; each Markdown line is its own unit."""
    return list(_split(text))


@lru_cache(maxsize=1024)
def _split(text: str) -> tuple[Sentence, ...]:
    """Cached: the errors, settings and decisions extractors each split the same messages."""
    result: list[Sentence] = []
    for line in prose_lines(text):
        protected = _LIST_MARKER.sub("", _HEADING.sub("", line))
        for abbr in _ABBREVIATIONS:
            protected = protected.replace(abbr + " ", abbr.replace(".", "\0") + " ")
        for raw in _BOUNDARY.split(protected):
            raw = raw.replace("\0", ".").strip()
            clean = plain(raw)
            if clean:
                # Codex and many editors write "I’ll": the rules read one apostrophe
                result.append(Sentence(text=clean, prose=plain(masked(raw)).replace("’", "'")))
    return tuple(result)
