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
- 0.7  the user, replying while the work goes on, settled a direction in words that settle it
       ("…, so let's stick to gitsync", "let's go for a one-liner", "we should stick to 5k
       batches as a default", "change in plan: …"), the clause before "so" as rationale;
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

The package reads each channel in its own module: `answers` (the user's answers, picks, approvals
and redirections), `plans` (approved plans), `marked` (markers, "Key decisions" lists, merge
resolutions in the assistant's prose), `prose` (a choice phrased in prose), `bypass` (a failed
command re-run with a flag that skips its check); `record` holds the scale and the record,
`alternatives` the options not taken, and `extract` gathers the forms and drops the twins.
"""

from .extract import extract_decisions
from .prose import is_decision
from .record import (
    ACCEPTED,
    ASKED,
    INTENDED,
    LISTED,
    MARKED,
    MAX_DECISIONS,
    PICKED,
    PLAN_STEP,
    PLANNED,
    REASONED,
    REDIRECTED,
    SETTLED,
    STATED,
)

__all__ = [
    "ACCEPTED",
    "ASKED",
    "INTENDED",
    "LISTED",
    "MARKED",
    "MAX_DECISIONS",
    "PICKED",
    "PLANNED",
    "PLAN_STEP",
    "REASONED",
    "REDIRECTED",
    "SETTLED",
    "STATED",
    "extract_decisions",
    "is_decision",
]
