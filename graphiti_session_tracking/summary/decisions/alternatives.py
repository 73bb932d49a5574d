"""The options a decision turned down, as whole phrases ("instead of X", "X over Y", "switched
from X to Y"): read by every channel that finds a choice in words."""

from __future__ import annotations

import re

_ALTERNATIVE_WORDS = 8
_ALTERNATIVE_LIMIT = 80

_BETTER = r"(?:cheaper|safer|simpler|better|cleaner|faster|easier|more robust)(?: and (?:cheaper|safer|simpler|better|cleaner|faster|easier))?"


# --- Alternatives: whole phrases only -----------------------------------------------------------

_ALTERNATIVE = re.compile(r"\b(?:instead of|rather than)\s+(.+)", re.IGNORECASE)
_THAN = re.compile(r"\b" + _BETTER + r" than\s+(.+)", re.IGNORECASE)
_OVER = re.compile(
    r"\b(?:use|uses|used|using|chose|choosing|go with|going with|went with|picked|opted for|settled on|"
    r"prefer(?:red|ring)?)\b.+?\bover\s+(.+)",
    re.IGNORECASE,
)
_FROM_TO = re.compile(r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing))\s+from\s+(.+?)\s+to\b", re.I)
_REPLACED = re.compile(r"\breplac(?:e|ed|ing)\s+(.+?)\s+with\b", re.IGNORECASE)
_WEIGHED_ALTERNATIVE = re.compile(
    r"(?:^|:\s*)(?:the|an|one|another) alternative (?:would have been|would be|was|is)\s+(.+?),?\s+but\b|"
    r"(?:^|:\s+)((?:(?!:\s).)+?)\s+would (?:also )?have worked\b",
    re.IGNORECASE,
)
_LEADING_FILLER = re.compile(r"^(?:(?:the|a|an|using|to|in|on|at|with|by|via|from)\s+)+", re.IGNORECASE)
_PHRASE_END = re.compile(
    r"[,;:.!?](?=\s|$)|[()]|\s[-–—]\s|\s(?:for|because|since|so that|when|which|that|and then|but|while|"
    r"if|unless|until|here|there)\s",
    re.IGNORECASE,
)


def _alternatives(text: str) -> list[str]:
    """What a sentence names as the option not taken, as whole phrases: a phrase that runs past
    _ALTERNATIVE_WORDS words, or to the end of a cut sentence, is dropped rather than cut."""
    found: list[str] = []
    for pattern in (_ALTERNATIVE, _OVER, _FROM_TO, _REPLACED, _WEIGHED_ALTERNATIVE, _THAN):
        for match in pattern.finditer(text):
            rest = next(g for g in match.groups() if g is not None)
            end = _PHRASE_END.search(rest)
            phrase = (rest[: end.start()] if end else rest).strip()
            phrase = _LEADING_FILLER.sub("", phrase).strip()
            if _whole(phrase) and not phrase.endswith("…") and phrase not in found:
                found.append(phrase)
    return found


def _whole(phrase: str) -> bool:
    return bool(phrase) and len(phrase.split()) <= _ALTERNATIVE_WORDS and len(phrase) <= _ALTERNATIVE_LIMIT
