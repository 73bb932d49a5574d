"""Choices the session made, read from the transcript's structure first and its phrasing last (no LLM).

A decision is a choice between options that the session made — by the assistant or the user, in
the main thread or a sub-agent — with its rationale when one is stated and the alternatives as
whole phrases. Each form found carries a `confidence`, how sure this reading is that the row is a
real decision (not how good the decision was):

- 0.9  the user answered an AskUserQuestion: the option picked (or the user's own answer), the
       other options as alternatives, the option's description as rationale (by the user);
- 0.9  an explicit marker line: "Decision: …", "**Verdict**: …", "Chosen approach: …" in the
       assistant's or a sub-agent's prose, or in a sub-agent's answer (by the assistant);
- 0.85 the user picked one of the options the assistant listed ("option 2", "2", "go with B");
- 0.8  a recommendation the user accepted ("I recommend X … Want me to?" followed by "yes");
- 0.8  an item of a "Key decisions" / "Design decisions" list (a closing summary's);
- 0.8  the approach of an approved plan (ExitPlanMode accepted, or "Implement the following
       plan:"): the sentence under its "Approach" / "Solution" / "Decision" heading, the
       "Context" or "Why" section as rationale, an "Alternative: …" heading as alternative;
- 0.7  a step of an approved plan (a sentence or a list item) that gives its reason or what it
       beats ("Refactor to a loop to avoid duplicating the logic", "… instead of a fixed path",
       "Uses dirname "$0" to find the folder — works with worktrees");
- 0.7  the user turned down a tool call and said what to do instead ("use X instead of Y");
- 0.6  a failed command run again with a flag that skips the check that failed (`git commit
       --no-gpg-sign` after "gpg failed to sign", `git add -f` after "paths are ignored");
- 0.6  a statement of a choice already made, in the first person or past tense: "Used X
       instead of Y", "I went with X over Y", "switched from X to Y", "made X optional",
       "replaced X with Y because…" (without a reason or an alternative, a report of an edit);
       one option weighed against another: "X would also have worked, but…", "the alternative
       would have been X, but…", "the simpler fix is to…", "X is the correct replacement",
       "X is the right template", "X is cheaper and safer than Y",
       "…, so I left them unchanged";
- 0.5  the same phrasings as intent ("I'll use X rather than Y", "I should use X instead of Y");
- 0.4  an action with what makes it a choice: the fact just before it ("There's already a
       fileExists in common.go. I need to remove my duplicate."; "There are other unstaged
       changes. I'll only commit the file we changed.") or a chosen means with its reason ("Let me
       fix the test file by removing the import since it's just for demonstration").

The assistant's extended thinking is read like its text: a choice is often worded only there ("The
user is right - I should use X instead of Y"), while the visible text just acts on it.

Several forms of one choice (a plan's approach, then "I'll use X instead of Y"; a question's answer,
then the plan updated with it: half their content words shared) are one decision, the surest kept. A session keeps at most MAX_DECISIONS, the surest first, and none below
MIN_CONFIDENCE (0.6): the 0.5 and 0.4 forms are read, so that a surer form of the same choice can
take their place, but not kept.

Not decisions: questions and offers ("should I…", "if you'd rather…"), the user's request restated
by the assistant ("I'll help you redact secrets instead of blocking" after the user asked for
exactly that), diagnoses ("returns None instead of 0"), text inside code, quotes, tables and
tool output (a file read, a document quoted), and plans that were rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

from graphiti_session_tracking.transcripts import Message, Session, ToolCall

from ._sentences import Sentence, cut, plain, prose_lines, split_sentences
from .model import DecisionRecord

MAX_DECISIONS = 10
# Forms below this are not recorded: an intention (0.5) or an action with its reason (0.4) was a
# decision a careful reader counts in fewer than half the rows, on sessions the rules were written
# on and on sessions nobody tuned for alike (bench/fidelity.py): precision first.
MIN_CONFIDENCE = 0.6
_DECISION_LIMIT = 300
_RATIONALE_LIMIT = 300
_ALTERNATIVE_WORDS = 8
_ALTERNATIVE_LIMIT = 80

# The confidence of each form (the scale in the module docstring).
ASKED = 0.9
MARKED = 0.9
PICKED = 0.85
ACCEPTED = 0.8
LISTED = 0.8
PLANNED = 0.8
PLAN_STEP = 0.7
REDIRECTED = 0.7
STATED = 0.6
INTENDED = 0.5
REASONED = 0.4

By = Literal["assistant", "user"]


@dataclass
class _Found:
    line: int
    record: DecisionRecord


def extract_decisions(session: Session, min_confidence: float = MIN_CONFIDENCE) -> list[DecisionRecord]:
    """At most MAX_DECISIONS decisions of `min_confidence` or more, near-duplicates dropped (the
    surer one kept), in transcript order."""
    found: list[_Found] = []
    for item in _every_form(session):
        key = _normalized(item.record.decision)
        if not key:
            continue
        twin = next((f for f in found if _same(item.record, key, f.record)), None)
        if twin is None:
            found.append(item)
        elif (item.record.confidence or 0, len(item.record.decision)) > (
            twin.record.confidence or 0,
            len(twin.record.decision),
        ):
            found[found.index(twin)] = item
    found = [f for f in found if (f.record.confidence or 0) >= min_confidence]
    if len(found) > MAX_DECISIONS:  # keep the surest, then the earliest
        ranked = sorted(found, key=lambda f: (-(f.record.confidence or 0), f.line))[:MAX_DECISIONS]
        found = [f for f in found if f in ranked]
    found.sort(key=lambda f: f.line)
    return [f.record for f in found]


def _every_form(session: Session) -> Iterator[_Found]:
    yield from _asked(session)
    yield from _bypassed(session)
    yield from _plans(session)
    yield from _rejections(session)
    yield from _picked_or_accepted(session)
    # What the user asked so far (a sub-agent's prompt is the assistant's own words, not a request).
    requests: list[str] = []
    for message in session.messages:
        if (
            message.is_human
            and not message.tool_results
            and not (message.is_sidechain or message.from_subagent)
        ):
            requests.append(message.text)
        elif message.role == "assistant":
            yield from _marked(message.text, message.line, "")
            yield from _listed(message.text, message.line)
            yield from _merged(message.text, message.line)
            yield from _phrased(message.text, message.line, requests)
            # The assistant's reasoning says its choices in the same words ("I should use X
            # instead of Y"), often where its visible text only acts on them.
            yield from _phrased(message.thinking, message.line, requests)
    for call in session.tool_calls:
        if call.name in ("Task", "Agent") and call.succeeded and call.result is not None:
            described = str(call.input.get("description") or "").strip()
            yield from _marked(call.result.text, call.line, described)


def _record(
    decision: str,
    rationale: str,
    alternatives: list[str],
    confidence: float,
    by: By,
) -> DecisionRecord:
    decision = decision.strip().rstrip(".!:;,")
    rationale = rationale.strip().rstrip(".:")
    rationale = rationale[:1].upper() + rationale[1:]
    whole = [a for a in dict.fromkeys(alternatives) if a]
    return DecisionRecord(
        decision=cut(decision, _DECISION_LIMIT),
        rationale=_cut_at_sentence(rationale, _RATIONALE_LIMIT),
        alternatives=whole or None,
        confidence=confidence,
        by=by,
    )


# --- AskUserQuestion: the user's answer ---------------------------------------------------------

_RECOMMENDED = re.compile(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)
_ANSWER_TEXT = re.compile(r'"([^"\n]+?)"="([^"\n]*?)"')


def _asked(session: Session) -> Iterator[_Found]:
    for call in session.tool_calls:
        if call.name != "AskUserQuestion" or not call.succeeded or call.result is None:
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
                yield _Found(call.line, record)


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
    decision = f"{header}: {chosen}" if header and header.lower() not in chosen.lower() else chosen
    return _record(decision, rationale, [o for o in others if _whole(o)], ASKED, "user")


# --- A failed command run again with a flag that goes around the failure ------------------------

# Flags that skip a check rather than fix what it found: re-running a failed command with one is
# a choice (to go around the failure), whatever the prose says.
_BYPASS_FLAGS = frozenset(
    {
        "--no-gpg-sign",
        "--no-verify",
        "--force",
        "-f",
        "--legacy-peer-deps",
        "--ignore-scripts",
        "--break-system-packages",
        "--no-build-isolation",
        "--insecure",
        "--no-check-certificate",
        "--allow-dirty",
        "--skip-checks",
    }
)


def _bypassed(session: Session) -> Iterator[_Found]:
    """ "Committed with --no-gpg-sign after `git commit` failed (gpg failed to sign the data)"."""
    from .errors import failure_lines

    failed: dict[tuple[str, ...], tuple[ToolCall, str]] = {}
    for call in session.tool_calls:
        if call.name != "Bash" or call.result is None:
            continue
        words = _first_command(str(call.input.get("command", "")))
        head = tuple(w for w in words[:3] if not w.startswith("-"))[:2]
        if not head:
            continue
        lines = failure_lines(call)
        if lines:
            failed[head] = (call, lines[0])
            continue
        earlier = failed.pop(head, None)
        if earlier is None:
            continue
        before = set(_first_command(str(earlier[0].input.get("command", ""))))
        added = [w for w in words if w in _BYPASS_FLAGS and w not in before]
        if added:
            shown = " ".join(_until_quoted(words))
            decision = f"Re-ran `{shown}` with {' '.join(added)} to get past the failure"
            yield _Found(
                call.line, _record(decision, f"It failed with: {earlier[1]}", [], STATED, "assistant")
            )


def _until_quoted(words: list[str]) -> list[str]:
    """The command's words up to its first quoted or substituted argument (a message, a heredoc)."""
    shown: list[str] = []
    for word in words[:8]:
        if word[:1] in "'\"$(`" or len(word) > 60:
            return [*shown, "…"]
        shown.append(word)
    return shown if len(words) <= 8 else [*shown, "…"]


def _first_command(command: str) -> list[str]:
    """The words of a command line's first command that is not a `cd`."""
    for part in re.split(r"&&|\|\||;|\n", command):
        words = part.split()
        if words and words[0] != "cd":
            return words
    return []


# --- Plans: the approach of an approved plan ----------------------------------------------------

_IMPLEMENT_PLAN = re.compile(r"^\s*Implement the following plan:\s*", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(#{1,6})\s+(.*?)\s*#*\s*$")
_APPROACH = re.compile(
    r"^(?:(?:the|our|proposed|chosen|recommended|selected|final)\s+)?"
    r"(?:approach|solution|decision|design|strategy)s?\b(?!\s+(?:considered|rejected))",
    re.IGNORECASE,
)
_WHY = re.compile(r"^(?:why\b|rationale\b|motivation\b|context\b|background\b|problem\b)", re.IGNORECASE)
_ALTERNATIVE_HEADING = re.compile(r"^alternatives?(?:\s+considered)?\s*(?::\s*(.+))?$", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)")


def _plans(session: Session) -> Iterator[_Found]:
    for call in session.tool_calls:
        if call.name == "ExitPlanMode" and call.succeeded and call.result is not None:
            plan = call.full_input.get("plan")
            if isinstance(plan, str) and not _turned_down(call.result.text):
                yield from _plan(plan, call.line)
    for message in session.messages:
        if message.role == "user" and _IMPLEMENT_PLAN.match(message.text):
            yield from _plan(_IMPLEMENT_PLAN.sub("", message.text, count=1), message.line)


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


def _lead(item: str) -> str:
    """A list item's name: the part before ' - ' or ': ' when it has one."""
    return re.split(r"\s+[-–—]\s+|:\s+", item, maxsplit=1)[0].strip()


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


# --- Explicit markers: "Decision: …", "Verdict: …" ---------------------------------------------

_MARKER = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:#{1,6}\s+)?(?:\*\*|__)?"
    r"(decision|final decision|decided|verdict|chosen approach|chosen option)"
    r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$",
    re.IGNORECASE,
)
_MARKER_RATIONALE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:rationale|reason|reasoning|why|because)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*(.+)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"[\[<{].*[\]>}]|\b(?:TBD|TODO|N/A)\b|/|\bor\b", re.IGNORECASE)


def _marked(text: str, line: int, context: str) -> Iterator[_Found]:
    lines = prose_lines(text)
    for index, raw in enumerate(lines):
        marker = _MARKER.match(plain(raw))
        if marker is None:
            continue
        raw_value = plain(marker.group(2)).strip()
        value = re.sub(r"[^\w)\]'\"]+$", "", raw_value).strip()
        if not value or raw_value.endswith("?") or (_PLACEHOLDER.search(raw_value) and len(raw_value) < 40):
            continue
        rationale = ""
        if index + 1 < len(lines) and (why := _MARKER_RATIONALE.match(lines[index + 1])):
            rationale = plain(why.group(1))
        kind = marker.group(1).lower()
        decision = (
            value if kind in ("decision", "final decision", "decided") else f"{kind.capitalize()}: {value}"
        )
        if context:
            decision = f"{context}: {decision}"
        yield _Found(line, _record(decision, rationale, _alternatives(value), MARKED, "assistant"))


# --- A "Key decisions" list, as in a closing summary -------------------------------------------

_DECISIONS_HEADING = re.compile(
    r"^(?:(?:key|main|major|design|technical|architectural|architecture|important)\s+)?decisions?"
    r"(?:\s+(?:made|taken))?\s*:?$",
    re.IGNORECASE,
)
_ITEM_REASON = re.compile(r"\s+[-–—]\s+|,?\s+(?:because|since|so that)\s+", re.IGNORECASE)


def _listed(text: str, line: int) -> Iterator[_Found]:
    inside = False
    for raw in prose_lines(text):
        item = _LIST_ITEM.match(raw)
        if item is None:
            title = plain(raw).strip().rstrip(":").strip()
            inside = bool(_DECISIONS_HEADING.match(title + ":")) if title else inside
            continue
        if not inside or raw[: len(raw) - len(raw.lstrip())].count(" ") >= 2:  # nested detail
            continue
        body = plain(item.group(1)).strip()
        if not body or body.endswith("?"):
            continue
        reason = _ITEM_REASON.search(body)
        decision, rationale = (body[: reason.start()], body[reason.end() :]) if reason else (body, "")
        decision = decision.rstrip(":").strip()
        if decision:
            yield _Found(line, _record(decision, rationale, _alternatives(decision), LISTED, "assistant"))


# --- A merge conflict resolved: which side's change each hunk keeps -----------------------------

_RESOLUTION = re.compile(
    r"\b(?:the )?resol(?:ved|ution) (?:version|file|code) (?:needs|keeps|takes|should keep|combines)\b.*:$|"
    r"\bresolve (?:the|both|each|these) (?:merge )?conflicts?(?: hunks?)? by\b.*:$",
    re.IGNORECASE,
)


def _merged(text: str, line: int) -> Iterator[_Found]:
    """ "The resolved version needs: 1. your branch's X 2. origin/main's Y": a choice per side."""
    lines = prose_lines(text)
    for index, raw in enumerate(lines):
        if not _RESOLUTION.search(plain(raw).strip()):
            continue
        items = []
        for following in lines[index + 1 :]:
            item = _LIST_ITEM.match(following)
            if item is None:
                break
            items.append(plain(item.group(1)).strip())
        if len(items) >= 2:
            kept = "; ".join(re.sub(r"\s*\((.+)\)$", "", item) for item in items)
            reasons = "; ".join(m.group(1) for item in items if (m := re.search(r"\((.+)\)$", item)))
            yield _Found(
                line, _record(f"Resolve the merge conflict keeping {kept}", reasons, [], STATED, "assistant")
            )


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


# "X would also have worked, but …", "The alternative would have been X, but …": the choice made, with its reason.
_WEIGHED = re.compile(
    r"^(?:the|an|one|another) alternative (?:would have been|would be|was|is)\b.+\bbut\b|"
    r"\bwould (?:also )?have worked\b.+\bbut\b",
    re.IGNORECASE,
)
_KEPT = re.compile(
    r"(?:^|,\s*so\s+|;\s*|\bso\s+)(?:I|we)\s+(?:deliberately\s+|intentionally\s+)?"
    r"(?:left|kept)\b.+\b(?:unchanged|as is|as-is|in place|alone|untouched)\b",
    re.IGNORECASE,
)


_BETTER = r"(?:cheaper|safer|simpler|better|cleaner|faster|easier|more robust)(?: and (?:cheaper|safer|simpler|better|cleaner|faster|easier))?"
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
            if _WEIGHED.search(sentence.prose) is None:
                clause = _RATIONALE_CLAUSE.search(decision)
                if clause and clause.start() > 0:
                    decision = decision[: clause.start()]
            by: By = "assistant"
            yield _Found(line, _record(decision, rationale, _alternatives(decision), confidence, by))
        if sentences:
            last = sentences[-1]


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


def _cut_at_sentence(text: str, limit: int) -> str:
    """Up to `limit` characters ending at a sentence end when it must be shortened."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("; "))
    return head[: end + 1].rstrip(";") if end > limit // 3 else cut(text, limit)


def _normalized(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _same(record: DecisionRecord, key: str, other: DecisionRecord) -> bool:
    """The same choice said twice: near-identical words, or the same alternative turned down in
    much the same words ("I need to use .ts instead of .js" then "I'll update the imports to use .ts
    instead of .js")."""
    if _similar(key, _normalized(other.decision)):
        return True
    words, others = _content_words(record.decision), _content_words(other.decision)
    if min(len(words), len(others)) >= 3 and len(words & others) >= 0.4 * min(len(words), len(others)):
        return (
            True  # "Auth approach: GitHub App + Actions workflow" and "update the plan with the GitHub App …"
        )
    shared = {a.lower() for a in record.alternatives or []} & {a.lower() for a in other.alternatives or []}
    if not shared:
        return False
    return len(words & others) >= 0.4 * min(len(words), len(others))


def _similar(a: str, b: str) -> bool:
    """Near-identical: one contains the other, or they share most of their characters in order."""
    return a in b or b in a or SequenceMatcher(None, a, b).ratio() >= 0.85
