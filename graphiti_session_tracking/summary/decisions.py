"""Decisions the assistant stated in its own words, found by their phrasing (no LLM).

"I decided to…", "going with…", "chose X over Y", "X instead of Y", "opted for…", "prefer X to Y":
the sentence is the decision, its "because/since/so that" clause (or a following sentence that
gives the reason) the rationale, and what follows "instead of / rather than / over" the
alternative. Questions, conditionals addressed to the person ("if you'd rather…"), phrases inside
code or quotes, and "instead of" in a bug report ("returns None instead of 0") are not decisions.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from graphiti_session_tracking.transcripts import Session

from ._sentences import Sentence, cut, split_sentences
from .model import DecisionRecord

MAX_DECISIONS = 10
_DECISION_LIMIT = 300
_RATIONALE_LIMIT = 300
_ALTERNATIVE_LIMIT = 60
_ALTERNATIVE_WORDS = 6

# Phrasings that state a choice on their own.
_STRONG = re.compile(
    r"\bdecided (?:to|on|against)\b|\b(?:I'll|I will|we'll|we will|let's|I'm|I am|we're) go(?:ing)? with\b|"
    r"\bwent with\b|\bgoing with\b|\bchose\b|\bchoosing\b|\bopted (?:for|to)\b|\bsettled on\b|"
    r"\b(?:I'll|I will|we'll|we will|let's) use\b.+?\bover\b|\bprefer(?:red|ring)?\s+(?!to\b)\S.*?\b(?:over|to)\b",
    re.IGNORECASE,
)
# Comparisons that are a choice only when someone acts: "Used X instead of Y", "I'll keep X rather than Y".
_COMPARISON = re.compile(r"\binstead of\b|\brather than\b", re.IGNORECASE)
_ACTOR = re.compile(
    r"\b(?:I|I'll|I've|I'd|I'm|we|we'll|we've|let's|let me)\b|^\w+ed\b|"
    r"^(?:use|keep|store|switch|move|make|add|replace|return|go|pick|write|put)\b|\b(?:use|uses|using|used)\b",
    re.IGNORECASE,
)
# "returns None instead of 0": a description of what went wrong, not a choice.
_REPORTING = re.compile(
    r"\b(?:returns?|returned|returning|got|gets|yields?|yielded|prints?|printed|shows?|showed|"
    r"produces?|produced|expected|fails?|failed|failing|error|bug|wrongly|incorrectly)\b",
    re.IGNORECASE,
)
_NOT_A_STATEMENT = re.compile(
    r"^(?:if|would|should|do|does|did|can|could|shall|whether)\b|\bif you(?:'d)?\b|\blet me know\b|\byou can\b",
    re.IGNORECASE,
)
_RATIONALE_CLAUSE = re.compile(r"(?:,\s*|\s+)(?:because|since|so that)\s+|,\s*as\s+", re.IGNORECASE)
_RATIONALE_NEXT = re.compile(
    r"^(?:because|since|that way|this way|(?:this|that|it) (?:is|was|keeps|avoids|makes|ensures|gives|lets|"
    r"means|allows|prevents|works|matches)|(?:this|that)'s|it's)\b",
    re.IGNORECASE,
)
_ALTERNATIVE = re.compile(r"\b(?:instead of|rather than)\s+(.+)", re.IGNORECASE)
# "over" and "to" name an alternative only after a verb of choosing ("iterate over" does not).
_OVER = re.compile(
    r"\b(?:use|uses|used|using|chose|choosing|go with|going with|went with|picked|opted for|settled on|"
    r"prefer(?:red|ring)?)\b.+?\bover\s+(.+)",
    re.IGNORECASE,
)
_PREFER_TO = re.compile(r"\bprefer(?:red|ring)?\s+(?!to\b)\S.*?\bto\s+(.+)", re.IGNORECASE)
_LEADING_FILLER = re.compile(r"^(?:(?:the|a|an|using|to|in|on|at|with|by|via|from)\s+)+", re.IGNORECASE)
_ALTERNATIVE_END = re.compile(
    r"[,;:.!?()]|\s(?:for|in|to|because|since|as|so|when|with|which|that|here|there|and then|but|while)\s",
    re.IGNORECASE,
)


def extract_decisions(session: Session) -> list[DecisionRecord]:
    """At most MAX_DECISIONS stated decisions of the main thread, near-duplicates dropped, in order."""
    records: list[DecisionRecord] = []
    seen: list[str] = []
    for message in session.messages:
        if message.role != "assistant" or message.is_sidechain:
            continue
        sentences = split_sentences(message.text)
        for index, sentence in enumerate(sentences):
            if not is_decision(sentence):
                continue
            following = sentences[index + 1] if index + 1 < len(sentences) else None
            record = _record(sentence, following)
            key = _normalized(record.decision)
            if any(_similar(key, other) for other in seen):
                continue
            seen.append(key)
            records.append(record)
            if len(records) == MAX_DECISIONS:
                return records
    return records


def is_decision(sentence: Sentence) -> bool:
    """Whether the sentence states a choice made, judged on its prose (code and quotes masked)."""
    prose = sentence.prose
    if prose.rstrip().endswith("?") or _NOT_A_STATEMENT.search(prose):
        return False
    if _STRONG.search(prose):
        return True
    return bool(_COMPARISON.search(prose) and _ACTOR.search(prose) and not _REPORTING.search(prose))


def _record(sentence: Sentence, following: Sentence | None) -> DecisionRecord:
    text = sentence.text
    decision, rationale = text, ""
    clause = _RATIONALE_CLAUSE.search(text)
    if clause and clause.start() > 0:
        decision, rationale = text[: clause.start()], text[clause.end() :]
    elif following is not None and _RATIONALE_NEXT.search(following.prose):
        rationale = following.text
    decision = decision.strip().rstrip(".!:;,")
    rationale = rationale.strip().rstrip(".")
    rationale = rationale[:1].upper() + rationale[1:]
    alternatives = _alternatives(decision)
    return DecisionRecord(
        decision=cut(decision, _DECISION_LIMIT),
        rationale=cut(rationale, _RATIONALE_LIMIT),
        alternatives=alternatives or None,
    )


def _alternatives(decision: str) -> list[str]:
    """The short noun phrase after "instead of" / "rather than" / "over" / "prefer X to"."""
    found: list[str] = []
    for pattern in (_ALTERNATIVE, _OVER, _PREFER_TO):
        for match in pattern.finditer(decision):
            rest = match.group(1)
            end = _ALTERNATIVE_END.search(rest)
            phrase = (rest[: end.start()] if end else rest).strip()
            phrase = " ".join(phrase.split()[:_ALTERNATIVE_WORDS])
            phrase = _LEADING_FILLER.sub("", phrase)
            if phrase and phrase not in found:
                found.append(cut(phrase, _ALTERNATIVE_LIMIT))
    return found


def _normalized(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _similar(a: str, b: str) -> bool:
    """Near-identical: one contains the other, or they share most of their characters in order."""
    return a in b or b in a or SequenceMatcher(None, a, b).ratio() >= 0.85
