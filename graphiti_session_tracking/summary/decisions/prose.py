"""The assistant's phrasing: a choice stated, intended, weighed or reasoned in a sentence of its
text or its thinking, with the reason given and the request it must not merely restate."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._sentences import Sentence, prose_lines, split_sentences
from .alternatives import _ALTERNATIVE, _BETTER, _REPLACED, _alternatives
from .record import INTENDED, REASONED, STATED, By, _Found, _record

# --- Phrasing: a choice stated in prose ---------------------------------------------------------

_STATED = re.compile(
    r"^(?:I |we |I've |we've |I have |we have )?(?:used|chose|picked|opted for|went with|settled on|"
    r"switched|replaced|swapped|kept|made|moved|decided)\b",
    re.IGNORECASE,
)
_INTENDED = re.compile(
    r"^(?:I'll|I will|we'll|we will|let's|let me|I'm going to|we're going to|I decided to|we decided to|"
    r"I need to|we need to|I should|we should|the fix is to|"
    r"I'd rather|the (?:simpler|better|cleaner|right|safer) (?:approach|option|fix|solution) is to)\b",
    re.IGNORECASE,
)
_CHOICE = re.compile(
    r"\binstead of\b|\brather than\b|\bswitch(?:ed)? from\b.+\bto\b|\breplac(?:ed?|ing)\b.+\bwith\b|"
    r"\bmade\b.+\boptional\b|\bdecided (?:to|on|against)\b|\bwent with\b|\bopted for\b|\bsettled on\b|"
    r"\bchose\b",
    re.IGNORECASE,
)
_OVER_CHOICE = re.compile(
    r"\b(?:use|used|chose|picked|prefer|preferred|went with|opted for|settled on)\b.+\bover\b", re.I
)
# "returns None instead of 0", "fails because…": what went wrong, not a choice.
_DIAGNOSIS = re.compile(
    r"\b(?:returns?|returned|returning|got|gets|yields?|yielded|prints?|printed|shows?|showed|"
    r"produces?|produced|expected|fails?|failed|failing|error|errors|bug|wrongly|incorrectly|"
    r"the (?:issue|problem|cause) (?:is|was)|because of|was being|is being|were being)\b",
    re.IGNORECASE,
)
_NOT_A_STATEMENT = re.compile(
    r"^(?:if|would|should|do|does|did|can|could|shall|whether|want|maybe|perhaps)\b|\bif you(?:'d)?\b|"
    r"^(?:I'll|I will|I can|let me) help you\b|^(?:here's|here is) how\b|"
    r"\blet me know\b|\byou can\b|\byou could\b|\bwould you\b|\bdo you\b|\bshould I\b|\bor should\b|"
    r",\s*or\s+(?!rather\b)",  # "X, or Y": still two options
    re.IGNORECASE,
)
_RATIONALE_CLAUSE = re.compile(r"(?:,\s*|\s+)(?:because|since|so that)\s+|,\s*as\s+", re.IGNORECASE)
_RATIONALE_NEXT = re.compile(
    r"^(?:because|since|that way|this way|(?:this|that|it) (?:is|was|keeps|avoids|makes|ensures|gives|lets|"
    r"means|allows|prevents|works|matches)|(?:this|that)'s|it's)\b",
    re.IGNORECASE,
)


# "X would also have worked, but …", "The alternative would have been X, but …": the choice made,
# with its reason. Not "The alternative is X, but …": options still being weighed, before a choice.
_WEIGHED = re.compile(
    r"^(?:the|an|one|another) alternative (?:would have been|was)\b.+\bbut\b|"
    r"\bwould (?:also )?have worked\b.+\bbut\b",
    re.IGNORECASE,
)
_KEPT = re.compile(
    r"(?:^|,\s*so\s+|;\s*|\bso\s+)(?:I|we)\s+(?:deliberately\s+|intentionally\s+)?"
    r"(?:left|kept)\b.+\b(?:unchanged|as is|as-is|in place|alone|untouched)\b",
    re.IGNORECASE,
)


# "The simpler fix is to…", "X is the correct replacement": one option judged better than others.
_JUDGED = re.compile(
    r"^(?:so,?\s+)?the (?:simplest|simpler|better|best|cleanest|cleaner|correct|right|safest|safer|easiest|"
    r"proper) (?:approach|option|fix|solution|way|choice)(?: here)? (?:is|uses|would be)\s+(?!:|$)\S|"
    r"^(?!(?:this|that|it|which)\b)\S.{0,60}\bis the (?:correct|right|better|best|safer|simpler|cleaner|proper) "
    r"(?:replacement|choice|option|approach|fix|solution|template|base|model|fit)\b|"
    # "A small dedicated script is cheaper and safer than unifying the two": one option over another.
    r"^(?!(?:this|that|it|which)\b)\S.{0,100}\b(?:is|are|would be) " + _BETTER + r" than\s+\S"
    # "X takes precedence over Y, which is the polite variant to set": the option to prefer.
    r"|,\s+which is the (?:polite|right|correct|preferred|recommended|safer|better|cleaner) "
    r"(?:variant|choice|option|one|way) to (?:set|use|pick|call)\b",
    re.IGNORECASE,
)
# "Note:", "To answer your question directly:": a lead-in before the sentence proper.
_PREAMBLE = re.compile(
    r"^(?:note|nb|update|to answer your question(?: directly)?|in short|short answer)\s*:\s*", re.I
)


def _phrased(text: str, line: int, requests: list[str]) -> Iterator[_Found]:
    last: Sentence | None = None  # the previous line's last sentence: the fact an action may follow
    for paragraph in prose_lines(text):  # a reason after a choice is looked for in its line only
        sentences = split_sentences(paragraph)
        for index, whole in enumerate(sentences):
            sentence = _after_lead_in(whole)
            confidence = phrased_confidence(sentence)
            reason_before = ""
            if confidence is None:
                previous = sentences[index - 1] if index > 0 else last
                confidence, reason_before = _reasoned(sentence, previous)
            if confidence is None:
                continue
            following = sentences[index + 1] if index + 1 < len(sentences) else None
            decision = re.sub(r"^why\s+(?=\S+ is the )", "", _PREAMBLE.sub("", sentence.text), flags=re.I)
            if _restated(f"{decision} {reason_before}", requests):
                continue
            rationale = reason_before or _phrased_rationale(sentence, decision, following)
            alternatives = _alternatives(decision)
            if _WEIGHED.search(sentence.prose) is not None:
                decision = _weighed_choice(decision, alternatives)
            else:
                clause = _RATIONALE_CLAUSE.search(decision)
                if clause and clause.start() > 0:
                    decision = decision[: clause.start()]
            by: By = "assistant"
            yield _Found(line, _record(decision, rationale, alternatives, confidence, by))
        if sentences:
            last = sentences[-1]


# After "X would have worked, but": the option that won, judged better ("the ignore entry is simpler").
_WINNER = re.compile(
    r",?\s+but\s+(?!(?:it|this|that|which|they|these|those)\b)(.{3,80}?)\s+(?:is|are|was|would be)\s+"
    + _BETTER
    + r"\b",
    re.IGNORECASE,
)


def _weighed_choice(sentence: str, alternatives: list[str]) -> str:
    """ "X would also have worked, but Y is simpler" says the choice last: the record says it first
    ("Chose Y over X"), or, when the sentence names no winner ("…, but it hides the conflict"), the
    option turned down ("Not X"); a reader of the sentence as it stands takes X for the choice."""
    if not alternatives:
        return sentence
    winner = _WINNER.search(sentence)
    if winner is not None:
        return f"Chose {winner.group(1)} over {alternatives[0]}"
    return f"Not {alternatives[0][:1].lower()}{alternatives[0][1:]}"


# "The user is right - I should use X instead of Y": the choice is after the lead-in.
_LEAD_IN = re.compile(r"^[^.!?]{3,60}?\s+[-–—:]\s+(?=(?:I|we)\b)")


def _after_lead_in(sentence: Sentence) -> Sentence:
    in_prose, in_text = _LEAD_IN.match(sentence.prose), _LEAD_IN.match(sentence.text)
    if in_prose is None or in_text is None:  # (code in the lead-in: left as it is)
        return sentence
    return Sentence(sentence.text[in_text.end() :], sentence.prose[in_prose.end() :])


# "There's already a fileExists in common.go. I need to remove my duplicate.": an action the
# session takes for a reason it states (in the sentence, or as the fact just before it).
_ACTION = re.compile(
    r"^(?:I'll|I will|let me|I need to|we need to|we'll)\s+(?:only\s+|just\s+|also\s+)?"
    r"(?:fix|remove|restore|commit|create|merge|enhance|revert|rename|delete|disable|enable|drop|"
    r"move|split|keep|skip|reuse|add|write|rewrite|switch|pin|downgrade|upgrade|limit|make)\b",
    re.IGNORECASE,
)
# The fact that makes it a choice: something already there, other things left alone, a limit.
_FACT_BEFORE = re.compile(r"\b(?:already|other|only|dropped|missing)\b", re.IGNORECASE)
# A choice of means or of scope: "by removing the import", "only the file we changed".
_CHOSEN_MEANS = re.compile(r"\bby \w+ing\b|\b(?:only|just)\b|\bto use\b", re.IGNORECASE)
# What is not a fact to act on: the assistant about itself ("I see the issue", "Perfect").
_NOT_A_FACT = re.compile(r"^(?:I|I'm|now I|ok|okay|good|great|perfect|done|let me|let's)\b", re.IGNORECASE)
_VAGUE_ACTION = re.compile(
    r"^(?:\S+\s+){1,4}(?:this|that|it|these|them)\b|\b(?:a|the) tests?\b(?! file)|\bto verify\b|"
    r"\b(?:an? )?(?:enhanced|simpler|new|better) version\b|\bfor (?:this|that|it)\W*$|\ba plan\b",
    re.IGNORECASE,
)


def _reasoned(sentence: Sentence, previous: Sentence | None) -> tuple[float | None, str]:
    """REASONED and the reason before, for an action with a stated reason; else (None, "")."""
    prose = sentence.prose.strip()
    if not _ACTION.match(prose) or prose.endswith("?") or _NOT_A_STATEMENT.search(prose):
        return None, ""
    if _VAGUE_ACTION.search(prose.rstrip(":. ")) or len(_content_words(prose)) < 3:
        return None, ""  # "Let me fix this", "Let me add a test": no choice a reader can act on
    clause = _RATIONALE_CLAUSE.search(prose)
    if clause is not None and clause.start() > 0 and _CHOSEN_MEANS.search(prose[: clause.start()]):
        return REASONED, ""
    if previous is None or previous.prose.rstrip().endswith(("?", ":")) or _NOT_A_FACT.match(previous.prose):
        return None, ""
    if _FACT_BEFORE.search(previous.prose) or _CHOSEN_MEANS.search(prose):
        return REASONED, previous.text
    return None, ""


def _phrased_rationale(sentence: Sentence, decision: str, following: Sentence | None) -> str:
    """The reason clause ("because…"), or after "X would have worked, but…" the but-clause and the
    rest of the paragraph, or a next sentence that reads as a reason ("That way…")."""
    if _WEIGHED.search(sentence.prose):
        but = re.search(r",?\s+but\s+(.+)$", decision)
        parts = [but.group(1)] if but else []
        if following is not None and not _CHOICE.search(following.prose):
            parts.append(following.text)
        return " ".join(parts)
    clause = _RATIONALE_CLAUSE.search(decision)
    if clause and clause.start() > 0:
        return decision[clause.end() :]
    if following is not None and _RATIONALE_NEXT.search(following.prose):
        return following.text
    return ""


def is_decision(sentence: Sentence) -> bool:
    """Whether one sentence of prose states a choice (code and quotes masked)."""
    return phrased_confidence(sentence) is not None


def phrased_confidence(sentence: Sentence) -> float | None:
    """STATED for a choice made, INTENDED for one about to be made, None for anything else."""
    prose = sentence.prose.strip()
    if prose.endswith("?") or _NOT_A_STATEMENT.search(prose) or _DIAGNOSIS.search(prose):
        return None
    if _WEIGHED.search(prose) or _KEPT.search(prose) or _JUDGED.search(prose):
        return STATED
    if not (_CHOICE.search(prose) or _OVER_CHOICE.search(prose)):
        return None
    if _REPLACED.search(prose) and not _RATIONALE_CLAUSE.search(prose) and not _ALTERNATIVE.search(prose):
        return None  # "Replaced the intro with…" reports an edit; a choice says why or what it beat
    if _STATED.match(prose):
        return STATED
    if _INTENDED.match(prose):
        return INTENDED
    return None


def _restated(decision: str, requests: list[str]) -> bool:
    """The user's own request said back: most of its words, or its alternative, were in what the user asked."""
    words = _content_words(decision)
    if not words:
        return True
    for request in requests:
        asked = _content_words(request)
        if len(words & asked) >= 0.6 * len(words):
            return True
        for alternative in _alternatives(decision):
            if len(alternative) > 3 and alternative.lower() in request.lower():
                return True
    return False


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "it",
        "this",
        "that",
        "i",
        "we",
        "you",
        "i'll",
        "let's",
        "let",
        "me",
        "use",
        "using",
        "used",
        "instead",
        "rather",
        "than",
        "over",
        "will",
        "can",
        "so",
        "as",
        "at",
        "by",
        "from",
        "into",
        "my",
        "our",
        "your",
    ]
)


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9][a-z0-9_.'-]*", text.lower()) if w not in _STOP}
