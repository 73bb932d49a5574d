"""The user's channel: an answer to AskUserQuestion, a tool call turned down with what to do
instead, an option picked from the assistant's list or a recommendation accepted, a direction
settled in the user's own words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from graphiti_session_tracking.transcripts import Message, Session, ToolKind

from .._sentences import plain, prose_lines, split_sentences
from ..model import DecisionRecord
from .alternatives import _alternatives, _whole
from .prose import _CHOICE, _DIAGNOSIS
from .record import _RECOMMENDED, ACCEPTED, ASKED, PICKED, REDIRECTED, SETTLED, _Found, _lead, _record

# --- AskUserQuestion: the user's answer ---------------------------------------------------------

_ANSWER_TEXT = re.compile(r'"([^"\n]+?)"="([^"\n]*?)"')


def _asked(session: Session) -> Iterator[_Found]:
    for call in session.tool_calls:
        if call.kind is not ToolKind.QUESTION or not call.succeeded or call.result is None:
            continue
        structured = call.result.structured or {}
        questions = structured.get("questions") or call.full_input.get("questions") or []
        answers = structured.get("answers")
        if not isinstance(answers, dict):
            answers = dict(_ANSWER_TEXT.findall(call.result.text))
        if not isinstance(questions, list):
            continue
        for question in questions:
            if not isinstance(question, dict):
                continue
            answer = answers.get(str(question.get("question", "")))
            if not isinstance(answer, str) or not answer.strip():
                continue
            record = _answered(question, answer.strip())
            if record is not None:
                yield _Found(call.line, record, answered=True)


_ASKED_MAX = 200


def _answered(question: dict[str, Any], answer: str) -> DecisionRecord | None:
    options = [o for o in question.get("options") or [] if isinstance(o, dict) and o.get("label")]
    labels = [str(o["label"]) for o in options]
    picked = [o for o in options if str(o["label"]) == answer]
    if not picked and question.get("multiSelect"):
        parts = [p.strip() for p in answer.split(",")]
        picked = [o for o in options if str(o["label"]) in parts]
    header = plain(str(question.get("header") or "")).strip()
    if picked:
        chosen = "; ".join(_RECOMMENDED.sub(" ", str(o["label"])).strip() for o in picked)
        rationale = " ".join(plain(str(o.get("description") or "")) for o in picked)
        others = [
            _RECOMMENDED.sub(" ", label).strip()
            for label in labels
            if all(label != o["label"] for o in picked)
        ]
    else:  # the user wrote an answer of their own
        chosen, rationale = plain(answer), ""
        others = [_RECOMMENDED.sub(" ", label).strip() for label in labels]
    if not chosen:
        return None
    asked = plain(str(question.get("question") or "")).strip()
    if asked and len(asked) <= _ASKED_MAX:
        decision = f"{asked} {chosen}"
    else:
        decision = f"{header}: {chosen}" if header and header.lower() not in chosen.lower() else chosen
    return _record(decision, rationale, [o for o in others if _whole(o)], ASKED, "user")


# --- The user turned a tool call down and said what to do instead ------------------------------

_REJECTED = re.compile(r"doesn't want to proceed with this tool use.*?the user said:\s*(.+)", re.DOTALL)
_CHOICE_WORDS = re.compile(r"\binstead of\b|\brather than\b", re.IGNORECASE)


def _rejections(session: Session) -> Iterator[_Found]:
    for call in session.tool_calls:
        if call.result is None or not call.result.is_error:
            continue
        said = _REJECTED.search(call.result.text)
        if said is None:
            continue
        for sentence in split_sentences(said.group(1)):
            if _CHOICE_WORDS.search(sentence.prose):
                decision = re.sub(
                    r"^(?:(?:can|could|would) you (?:please )?|please |I want (?:you to )?|let's )",
                    "",
                    sentence.text.rstrip("?"),
                    flags=re.IGNORECASE,
                )
                decision = decision[:1].upper() + decision[1:]
                yield _Found(call.line, _record(decision, "", _alternatives(decision), REDIRECTED, "user"))
                break


# --- Options listed by the assistant, then picked or accepted by the user ---------------------

_ACCEPT = re.compile(
    r"^(?:yes|yep|yeah|ok|okay|sure|sounds good|go ahead|go for it|do it|agreed|please do|proceed|"
    r"let'?s do (?:it|that)|do that|that works|perfect)\b(?:[\s,.!]*(?:please|go ahead|do it|thanks?)?[\s.!]*$|"
    r"[,.!]?\s+and\b)",  # "yes, and push it too": accepted, with more to do
    re.IGNORECASE,
)
_PICK = re.compile(
    r"^(?:(?:let'?s |I'?ll |I )?(?:go with|use|pick|choose|take|do)\s+)?(?:option|approach|choice|#)?\s*"
    r"(\d{1,2}|[a-e])\b[\s.!)]*(?:please)?[\s.!]*$",
    re.IGNORECASE,
)
_RECOMMEND = re.compile(
    r"\b(?:I(?:'d| would)? (?:recommend|suggest)|my recommendation|recommended(?: approach| option)?:|"
    r"\(recommended\)|I'd go with|the best option is|the better option is)",
    re.IGNORECASE,
)
_OPTION = re.compile(
    r"^\s*(?:#{1,6}\s+)?(?:[-*+]\s+)?(?:\*\*)?(?:option\s+)?(\d{1,2}|[a-e])[.):]\s*(.+)", re.IGNORECASE
)


def _picked_or_accepted(session: Session) -> Iterator[_Found]:
    previous: Message | None = None
    for message in session.messages:
        if message.is_sidechain or message.from_subagent:
            continue
        if message.role == "assistant" and message.text.strip():
            previous = message
        elif message.is_human and not message.tool_results:
            reply = message.text.strip()
            if previous is not None and len(reply) <= 100:
                found = _choice(previous.text, reply)
                if found is not None:
                    yield _Found(previous.line, found)
            previous = None


def _choice(offer: str, reply: str) -> DecisionRecord | None:
    options = _options(offer)
    pick = _PICK.match(reply)
    if pick and len(options) >= 2:
        key = pick.group(1).lower()
        chosen = next((text for number, text in options if number.lower() == key), None)
        if chosen is not None:
            others = [_lead(text) for number, text in options if number.lower() != key]
            return _record(chosen, "", [o for o in others if _whole(o)], PICKED, "user")
    if _ACCEPT.match(reply):
        sentences = [x for x in split_sentences(offer) if not x.prose.rstrip().endswith("?")]
        proposal = next((x for x in sentences if _RECOMMEND.search(x.text)), None) or next(
            (x for x in sentences if _CHOICE.search(x.prose) and not _DIAGNOSIS.search(x.prose)), None
        )
        if proposal is not None:
            text = _RECOMMENDED.sub(" ", proposal.text).strip()
            if text.endswith(":"):
                text = f"{text} {_code_after(offer, text)}".strip()
            text = re.sub(
                r"^(?:my )?recommend(?:ation|ed(?: approach| option)?)?\s*:\s*", "", text, flags=re.I
            )
            return _record(text, "", _alternatives(text), ACCEPTED, "assistant")
    return None


def _code_after(text: str, sentence: str) -> str:
    """The first line of the code block that a sentence ending in ':' introduces ('' if none)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if plain(line).endswith(sentence):
            rest = [x.strip() for x in lines[index + 1 :] if x.strip()]
            if (
                len(rest) >= 2
                and rest[0].startswith(("```", "~~~"))
                and not rest[1].startswith(("```", "~~~"))
            ):
                return rest[1] if len(rest[1]) <= 120 else ""
            return ""
    return ""


def _options(text: str) -> list[tuple[str, str]]:
    """The last numbered or lettered list of a message (outside code), the one a reply picks from."""
    runs: list[list[tuple[str, str]]] = []
    for line in prose_lines(text):
        option = _OPTION.match(line)
        if option is None:
            continue
        number, body = option.group(1).lower(), plain(option.group(2)).strip().rstrip("?").strip()
        if number in ("1", "a") or not runs:
            runs.append([])
        if body and number not in {n for n, _ in runs[-1]}:
            runs[-1].append((number, body))
    return runs[-1] if runs else []


# --- The user settled a direction in their own words -------------------------------------------

# "so let's stick to gitsync", "Let's go for a one-liner", "we should stick to 5k batches",
# "let's do this in 3 commits", "change in plan: all files in the root folder": a choice the user
# makes while the work goes on, in words that settle it. Not "let's try/see/fix …": a request.
_SETTLE = re.compile(
    r"\b(?P<lead>(?:let'?s|we should|I'?d rather|I would rather|I'?d prefer to)\s+(?:just\s+|instead\s+)?)"
    r"(?:stick (?:to|with)|go (?:for|with)|keep|switch to|settle on|opt for|drop|"
    r"do (?:this|it|that) (?:in|as|via)|use(?=.*\b(?:instead of|rather than)\b))\b"
    r"|\bchange (?:in|of) plans?\s*[:,—–-]",
    re.IGNORECASE,
)
# What may follow a settling phrase without naming a choice: "let's keep going", "let's go with
# it for now", "let's keep it simple".
_FILLER = frozenset(
    ["going", "on", "up", "here", "there", "now", "then", "again", "for", "same", "way", "one", "as", "is"]
)
_PRONOUN = frozenset(["it", "this", "that", "these", "those", "them"])
# The reason the user gives before the choice in the same sentence: "…, so let's stick to X".
_SO = re.compile(r"^(.{12,}?)[,;]?\s+so\s+(?:I guess\s+|I think\s+)?$", re.IGNORECASE)
_SETTLED_LIMIT = 2_000  # longer messages are pasted documents or reviews, not a reply that settles


def _settled(session: Session) -> Iterator[_Found]:
    replying = False  # a choice settled while the work goes on, not the first request
    for message in session.messages:
        if message.is_sidechain or message.from_subagent:
            continue
        if message.role == "assistant" and message.text.strip():
            replying = True
        elif message.is_human and not message.tool_results and replying:
            if len(message.text) > _SETTLED_LIMIT:
                continue
            for sentence in split_sentences(message.text):
                found = _settling(sentence.text, sentence.prose)
                if found is not None:
                    yield _Found(message.line, found)


def _settling(text: str, prose: str) -> DecisionRecord | None:
    """The choice a sentence of the user's settles, with the reason said before it; None if none."""
    if prose.rstrip().endswith("?") or _SETTLE.search(prose) is None:
        return None  # (a settling phrase inside code or a quote is not the user's)
    settle = _SETTLE.search(text)
    if settle is None:
        return None
    words = [w for w in re.findall(r"[\w'./-]+", text[settle.end() :].lower()) if w not in _FILLER]
    if not words or (words[0] in _PRONOUN and len(words) < 3):
        return None
    start = settle.end("lead") if settle.group("lead") else settle.start()
    decision = text[start:].strip()
    reason = _SO.match(text[: settle.start()])
    rationale = (
        re.sub(r"^(?:ok(?:ay)?|yes|yep|yeah|right|hmm)[,.!]?\s+", "", reason.group(1), flags=re.I)
        if reason
        else ""
    )
    decision = decision[:1].upper() + decision[1:]
    return _record(decision, rationale, _alternatives(decision), SETTLED, "user")
