"""The plan channel: the approach, rationale, alternatives and reasoned steps of a plan the user
approved (ExitPlanMode accepted, "Implement the following plan:", Codex's "PLEASE IMPLEMENT THIS
PLAN:")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from graphiti_session_tracking.transcripts import Session, ToolKind

from .._sentences import plain, prose_lines, split_sentences
from .alternatives import _alternatives, _whole
from .record import _LIST_ITEM, _RECOMMENDED, PLAN_STEP, PLANNED, _Found, _lead, _record

# --- Plans: the approach of an approved plan ----------------------------------------------------

# The message that hands an approved plan over for implementation: Claude Code's, and Codex's
# after Plan mode.
_IMPLEMENT_PLAN = re.compile(
    r"^\s*(?:Implement the following plan|PLEASE IMPLEMENT THIS PLAN):\s*", re.IGNORECASE
)
_HEADING = re.compile(r"^\s*(#{1,6})\s+(.*?)\s*#*\s*$")
_APPROACH = re.compile(
    r"^(?:(?:the|our|proposed|chosen|recommended|selected|final)\s+)?"
    r"(?:approach|solution|decision|design|strategy)s?\b(?!\s+(?:considered|rejected))",
    re.IGNORECASE,
)
_WHY = re.compile(r"^(?:why\b|rationale\b|motivation\b|context\b|background\b|problem\b)", re.IGNORECASE)
_ALTERNATIVE_HEADING = re.compile(r"^alternatives?(?:\s+considered)?\s*(?::\s*(.+))?$", re.IGNORECASE)


def _plans(session: Session) -> Iterator[_Found]:
    for call in session.tool_calls:
        if call.kind is ToolKind.PLAN and call.succeeded and call.result is not None:
            plan = call.full_input.get("plan")
            if isinstance(plan, str) and not _turned_down(call.result.text):
                yield from _plan(plan, call.line)
    for message in session.messages:
        if message.role == "user" and _IMPLEMENT_PLAN.match(message.text):
            yield from _plan(_IMPLEMENT_PLAN.sub("", message.text, count=1), message.line)


def plan_request(text: str) -> str | None:
    """What a message that hands over an approved plan asks for, as a reader would put it: the
    plan's title and the first sentence of its context, as plain text ("Implement the plan: Make
    evaluate the default CLI subcommand. Running … fails."); None for any other message."""
    start = _IMPLEMENT_PLAN.match(text)
    if start is None:
        return None
    sections = _sections(text[start.end() :])
    titled = [(heading, lines) for heading, lines in sections if heading]
    title = (
        re.sub(r"^(?:implementation\s+)?plan\s*:\s*", "", titled[0][0], flags=re.IGNORECASE) if titled else ""
    )
    why = next((lines for heading, lines in sections if _WHY.match(heading)), None)
    prose = why or next((lines for _, lines in sections if lines), [])
    sentences = split_sentences(" ".join(prose))
    first = sentences[0].text.strip() if sentences else ""
    return " ".join(
        part
        for part in (f"Implement the plan: {title.rstrip('.')}." if title else "Implement the plan:", first)
        if part
    )


def _turned_down(text: str) -> bool:
    return bool(re.search(r"doesn't want to proceed|rejected|not approved", text, re.IGNORECASE))


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, prose lines) of a Markdown document, code blocks left out; text before the first heading is ''."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in prose_lines(text):
        heading = _HEADING.match(line)
        if heading:
            sections.append((plain(heading.group(2)), []))
        else:
            sections[-1][1].append(line)
    return sections


def _plan(text: str, line: int) -> Iterator[_Found]:
    sections = _sections(text)
    yield from _plan_steps(sections, line)
    approach = next((lines for title, lines in sections if _APPROACH.match(title) and lines), None)
    decision = _first_statement(approach) if approach else ""
    if not decision:
        return
    why = next((lines for title, lines in sections if _WHY.match(title) and lines), [])
    rationale = _first_statement(why) if why else ""
    alternatives: list[str] = []
    for title, lines in sections:
        alt = _ALTERNATIVE_HEADING.match(title)
        if alt and alt.group(1):
            alternatives.append(_RECOMMENDED.sub(" ", alt.group(1)).strip())
        elif alt:
            alternatives += [plain(m.group(1)) for ln in lines if (m := _LIST_ITEM.match(ln))]
    alternatives += _alternatives(decision)
    yield _Found(
        line, _record(decision, rationale, [a for a in alternatives if _whole(a)], PLANNED, "assistant")
    )


def _plan_steps(sections: list[tuple[str, list[str]]], line: int) -> Iterator[_Found]:
    for title, lines in sections:
        if _APPROACH.match(title) or _WHY.match(title) or _ALTERNATIVE_HEADING.match(title):
            continue
        for step in lines:
            item = _LIST_ITEM.match(step)
            if item is not None:  # an item is a step when it says why (the reason is the choice)
                step = item.group(1)
            for sentence in split_sentences(step):
                if _PLAN_STEP.match(sentence.prose) is None or sentence.prose.rstrip().endswith("?"):
                    continue
                split = _PLAN_REASON.search(sentence.text)
                if split is None or split.start() == 0:
                    continue
                choice = sentence.text[: split.start()]
                reason = "" if split.group(1) else sentence.text[split.start() :].strip(" ,").rstrip(":")
                reason = re.sub(r"^[—–\s]*(?:because|since|so that)?\s*", "", reason, flags=re.IGNORECASE)
                if choice.count("(") > choice.count(")"):  # "to stderr (always, since …)": closed again
                    choice += ")"
                    reason = reason.rstrip(".").removesuffix(")")
                found = _record(
                    choice if reason else sentence.text,
                    reason,
                    _alternatives(sentence.text),
                    PLAN_STEP,
                    "assistant",
                )
                yield _Found(line, found)


# "Uses dirname "$0" to find the folder — works with worktrees": what the step's way achieves.
_REASON_VERB = r"(?:works|keeps|avoids|makes|ensures|lets|prevents|stays|survives)\b"
# A step of an approved plan that says why it is done this way: "Refactor to a loop to avoid
# duplicating the logic", "Resolve the path with X instead of a fixed one".
_PLAN_STEP = re.compile(
    r"^(?!(?:the|a|an|this|that|these|those|it|if|when|for|no|each|all|currently|note|there|we|you|i)\b)"
    r"[A-Z][a-z]+\b.*(?:\b(?:to avoid|so that|because|since|instead of|rather than)\b|\s[—–]\s"
    + _REASON_VERB
    + ")",
)
_PLAN_REASON = re.compile(
    r"\s+(instead of|rather than)\b|,?\s+\(?(?:to avoid|so that|because|since)\s+|\s[—–]\s(?="
    + _REASON_VERB
    + ")",
    re.IGNORECASE,
)


def _first_statement(lines: list[str]) -> str:
    """The first sentence of a section; one that ends in ':' takes the list it introduces."""
    for index, line in enumerate(lines):
        if _LIST_ITEM.match(line):
            continue
        sentences = split_sentences(line)
        if not sentences:
            continue
        first = sentences[0].text
        if first.endswith(":"):
            items = []
            for following in lines[index + 1 :]:
                item = _LIST_ITEM.match(following)
                if not item:
                    break
                items.append(_lead(plain(item.group(1))))
            if items:
                return f"{first} {'; '.join(items)}"
        return first
    return ""
