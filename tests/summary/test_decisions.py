"""key_decisions: each form a choice takes in a transcript, its confidence, and what is not a decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary import EnhancedSessionSummary
from graphiti_session_tracking.summary._sentences import split_sentences
from graphiti_session_tracking.summary.decisions import (
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
    extract_decisions,
    is_decision,
)
from graphiti_session_tracking.summary.model import DecisionRecord
from graphiti_session_tracking.transcripts import Session, read_transcript


def read_decisions(session: Session) -> list[DecisionRecord]:
    """Every form the rules read, the low-confidence ones included (they are read, not kept)."""
    return extract_decisions(session, min_confidence=0.0)


def _decisions(tmp_path: Path, *texts: str) -> list[DecisionRecord]:
    t = TranscriptBuilder()
    t.user("Build the auth module.")
    for text in texts:
        t.say(text)
    return read_decisions(t.read(tmp_path))


_QUESTION = {
    "question": "Which signing algorithm should the tokens use?",
    "header": "Signing",
    "options": [
        {"label": "RS256 (Recommended)", "description": "Keys can rotate without redeploying."},
        {"label": "HS256", "description": "One shared secret, simpler."},
        {"label": "EdDSA", "description": "Smallest signatures."},
    ],
    "multiSelect": False,
}


def test_ask_user_question_answer(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add JWT auth.")
    answer = {"Which signing algorithm should the tokens use?": "RS256 (Recommended)"}
    t.call(
        "AskUserQuestion",
        {"questions": [_QUESTION]},
        'User has answered your questions: "Which signing algorithm should the tokens use?"="RS256 (Recommended)".',
        structured={"questions": [_QUESTION], "answers": answer},
    )
    assert read_decisions(t.read(tmp_path)) == [
        DecisionRecord(
            decision="Which signing algorithm should the tokens use? RS256",
            rationale="Keys can rotate without redeploying",
            alternatives=["HS256", "EdDSA"],
            confidence=ASKED,
            by="user",
        )
    ]


def test_ask_user_question_answer_from_the_text_and_an_answer_of_the_users_own(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add JWT auth.")
    t.call(
        "AskUserQuestion",
        {"questions": [_QUESTION]},
        'User has answered your questions: "Which signing algorithm should the tokens use?"="ES256 with keys in KMS".',
    )
    [record] = read_decisions(t.read(tmp_path))
    assert record.decision == "Which signing algorithm should the tokens use? ES256 with keys in KMS"
    assert record.alternatives == ["RS256", "HS256", "EdDSA"]
    assert (record.confidence, record.by) == (ASKED, "user")


def test_unanswered_question_is_no_decision(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add JWT auth.")
    t.call(
        "AskUserQuestion",
        {"questions": [_QUESTION]},
        "The user wants to clarify these questions.",
        is_error=True,
    )
    assert read_decisions(t.read(tmp_path)) == []


_PLAN = """# Plan: Make `evaluate` the default subcommand

## Context

Running `cli --url x` fails because `--url` belongs to the `evaluate` subcommand.

## Approach

Make `evaluate` the default command with `isDefault: true` rather than moving the options to the root.

## Alternative: Copy the options to the root program (fallback)

## Verification

Run the tests.
"""


def test_approved_plan(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the cli.")
    t.call("ExitPlanMode", {"plan": _PLAN}, "User has approved your plan. You can now start coding.")
    assert read_decisions(t.read(tmp_path)) == [
        DecisionRecord(
            decision="Make evaluate the default command with isDefault: true rather than moving the options to the root",
            rationale="Running cli --url x fails because --url belongs to the evaluate subcommand",
            alternatives=[
                "Copy the options to the root program (fallback)",
                "moving the options to the root",
            ],
            confidence=PLANNED,
            by="assistant",
        )
    ]


def test_plan_to_implement_and_rejected_plan(tmp_path: Path) -> None:
    for handover in ("Implement the following plan:", "PLEASE IMPLEMENT THIS PLAN:"):  # Claude Code, Codex
        t = TranscriptBuilder()
        t.user(f"{handover}\n\n" + _PLAN)
        [record] = read_decisions(t.read(tmp_path))
        assert record.confidence == PLANNED

    t = TranscriptBuilder()
    t.user("Fix the cli.")
    t.call(
        "ExitPlanMode",
        {"plan": _PLAN},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        is_error=True,
    )
    assert read_decisions(t.read(tmp_path / "")) == []


def test_plan_steps_that_give_their_reason(tmp_path: Path) -> None:
    plan = (
        "# Hook chaining\n\n## Implementation\n\n### 1. Refactor\n\n"
        "The code has four copies. Refactor to a hookSpec struct and a loop to avoid duplicating the logic:\n\n"
        "```go\ntype hookSpec struct{}\n```\n\n### 2. Paths\n\nResolve the hook folder with dirname instead of a fixed path.\n"
        "\n### 3. Tests\n\nAdd tests for the backup.\n"
    )
    t = TranscriptBuilder()
    t.user("Implement the following plan:\n\n" + plan)
    records = read_decisions(t.read(tmp_path))
    assert [(r.decision, r.rationale, r.alternatives, r.confidence) for r in records] == [
        ("Refactor to a hookSpec struct and a loop", "To avoid duplicating the logic", None, PLAN_STEP),
        ("Resolve the hook folder with dirname instead of a fixed path", "", ["fixed path"], PLAN_STEP),
    ]


def test_plan_without_an_approach_is_a_list_of_steps_not_a_decision(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the cli.")
    t.call(
        "ExitPlanMode",
        {"plan": "# Plan: Fix errors\n\n## Goal\n\nFix it.\n\n## Steps\n\n1. Edit main.go\n"},
        "ok",
    )
    assert read_decisions(t.read(tmp_path)) == []


def test_explicit_decision_line_with_rationale(tmp_path: Path) -> None:
    [record] = _decisions(
        tmp_path,
        "Looked at both stores.\n\n**Decision:** keep sessions in Redis\n**Rationale:** they expire on their own",
    )
    assert record == DecisionRecord(
        decision="keep sessions in Redis",
        rationale="They expire on their own",
        confidence=MARKED,
        by="assistant",
    )


def test_sub_agent_answer_with_a_decision_marker(tmp_path: Path) -> None:
    """A marked decision in a sub-agent's answer, with its task (a review's verdict is no
    decision: tests/summary/test_verdicts.py)."""
    t = TranscriptBuilder()
    t.user("Pick a cache.")
    t.call(
        "Task",
        {"description": "Pick a cache", "prompt": "Choose between Redis and Memcached."},
        "**Decision:** Redis instead of Memcached\nRationale: we already run it",
    )
    [record] = read_decisions(t.read(tmp_path))
    assert record.decision == "Pick a cache: Redis instead of Memcached"
    assert record.rationale == "We already run it" and record.alternatives == ["Memcached"]
    assert (record.confidence, record.by) == (MARKED, "assistant")


def test_sub_agent_prose_reads_like_the_main_thread(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Explore.")
    t.say("I decided to use Redis instead of Memcached.")
    t.records[-1]["isSidechain"] = True
    [record] = read_decisions(t.read(tmp_path))
    assert record.alternatives == ["Memcached"]


def test_template_marker_is_no_decision(tmp_path: Path) -> None:
    assert _decisions(tmp_path, "Decision: [APPROVE / REQUEST CHANGES]", "Verdict: <your verdict>") == []


def test_key_decisions_list_of_a_closing_summary(tmp_path: Path) -> None:
    records = _decisions(
        tmp_path,
        "## Summary\n\nAll done.\n\n**Key decisions:**\n"
        "- Kept the SQLite store — the data is tiny\n  - measured at 3 MB\n"
        "- Used httpx instead of requests because it has timeouts by default\n\n"
        "## Next steps\n\n- Add a migration",
    )
    assert [(r.decision, r.rationale, r.alternatives, r.confidence) for r in records] == [
        ("Kept the SQLite store", "The data is tiny", None, LISTED),
        ("Used httpx instead of requests", "It has timeouts by default", ["requests"], LISTED),
    ]


def test_user_picks_a_listed_option(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Review the repo and propose improvements.")
    t.say(
        "## Findings\n\n1. **Tests** are missing\n2. **CI** is slow\n\n"
        "Which should I do?\n\n1. Add pytest\n2. Speed up CI with caching\n3. All of the above"
    )
    t.user("2")
    [record] = read_decisions(t.read(tmp_path))
    assert record == DecisionRecord(
        decision="Speed up CI with caching",
        alternatives=["Add pytest", "All of the above"],
        confidence=PICKED,
        by="user",
    )


def test_recommendation_the_user_accepted(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("The release is failing, what can we do?")
    t.say(
        "Two ways out: pin the action, or vendor the script. "
        "I recommend pinning the action to v4 rather than vendoring the script. Want me to do that?"
    )
    t.user("yes, go ahead")
    [record] = read_decisions(t.read(tmp_path))
    assert record.decision == "I recommend pinning the action to v4 rather than vendoring the script"
    assert record.alternatives == ["vendoring the script"]
    assert (record.confidence, record.by) == (ACCEPTED, "assistant")


def test_accepted_proposal_that_introduces_code(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Can the literals go?")
    t.say("Yes. Cast instead of duplicate literal:\n\n```go\nNewLanguage(string(RUST))\n```\n\nWant me to?")
    t.user("yes, and push it too")
    [record] = read_decisions(t.read(tmp_path))
    assert record.decision == "Cast instead of duplicate literal: NewLanguage(string(RUST))"
    assert (record.alternatives, record.confidence) == (["duplicate literal"], ACCEPTED)


def test_recommendation_without_acceptance_is_no_decision(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("The release is failing, what can we do?")
    t.say("I'd recommend pinning the action to v4. Want me to do that?")
    t.user("no, let me think about it first")
    assert read_decisions(t.read(tmp_path)) == []


def test_direction_the_user_settled_in_their_own_words(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Move the package out of pkg/.")
    t.say("Should I rename the package to `sync` while moving it, or keep its name?")
    t.user(
        'ok, idea was to rename the package but the clash with the stdlib is not great, so let\'s stick to "gitsync" '
        "and just move it out of the pkg folder"
    )
    t.say("Moved it.")
    t.user(
        "10k gets an internal server error, 5k works again, so I guess we should stick to 5k batches as a default."
    )
    first, second = read_decisions(t.read(tmp_path))
    assert first == DecisionRecord(
        decision='Stick to "gitsync" and just move it out of the pkg folder',
        rationale="Idea was to rename the package but the clash with the stdlib is not great",
        confidence=SETTLED,
        by="user",
    )
    assert (second.decision, second.rationale) == (
        "Stick to 5k batches as a default",
        "10k gets an internal server error, 5k works again",
    )


@pytest.mark.parametrize(
    "reply",
    [
        "let's keep going",
        "ok let's go with it for now",
        "let's keep it simple",
        "let's try the other port",  # a request, not a choice between ways
        "should we stick to 5k batches?",  # still asking
        "run `let's stick to X` in the shell",  # the words are code, not the user's
    ],
)
def test_reply_that_settles_nothing(tmp_path: Path, reply: str) -> None:
    t = TranscriptBuilder()
    t.user("Tune the batch size.")
    t.say("Batches of 10k fail; 5k works.")
    t.user(reply)
    assert read_decisions(t.read(tmp_path)) == []


def test_settling_words_in_the_first_request_are_the_request(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Let's stick to 5k batches as a default in the mirror.")
    t.say("Done.")
    assert read_decisions(t.read(tmp_path)) == []


def test_turned_down_tool_call_with_what_to_do_instead(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Handle the errors in main.go.")
    t.call(
        "Edit",
        {"file_path": "/p/main.go", "old_string": "a", "new_string": "b"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected. "
        "To tell you how to proceed, the user said:\ncan you use a switch case instead of linked ifelse?",
        is_error=True,
    )
    [record] = read_decisions(t.read(tmp_path))
    assert record == DecisionRecord(
        decision="Use a switch case instead of linked ifelse",
        alternatives=["linked ifelse"],
        confidence=REDIRECTED,
        by="user",
    )


@pytest.mark.parametrize(
    ("text", "decision", "alternatives", "confidence"),
    [
        (
            "- Used `Result<T, E>` instead of raising exceptions for `factorial()`",
            "Used Result<T, E> instead of raising exceptions for factorial()",
            ["raising exceptions"],
            STATED,
        ),
        ("I chose httpx over requests.", "I chose httpx over requests", ["requests"], STATED),
        (
            "We switched from Jest to Vitest, since it is faster.",
            "We switched from Jest to Vitest",
            ["Jest"],
            STATED,
        ),
        (
            "Made the cache optional because small installs don't need it.",
            "Made the cache optional",
            None,
            STATED,
        ),
        ("I'll use RS256 rather than HS256.", "I'll use RS256 rather than HS256", ["HS256"], INTENDED),
        (
            "The correct approach uses only `errors.As()` with an if/else chain.",
            "The correct approach uses only errors.As() with an if/else chain",
            None,
            STATED,
        ),
        (
            "For writes, `workspace-write` is the correct replacement.",
            "For writes, workspace-write is the correct replacement",
            None,
            STATED,
        ),
        (
            "The alternative would have been pinning the cache to a temp dir, but the ignore entry is simpler.",
            "Chose the ignore entry over pinning the cache to a temp dir",  # the choice first, as made
            ["pinning the cache to a temp dir"],
            STATED,
        ),
    ],
)
def test_phrasings(
    tmp_path: Path, text: str, decision: str, alternatives: list[str] | None, confidence: float
) -> None:
    [record] = _decisions(tmp_path, text)
    assert (record.decision, record.alternatives, record.confidence) == (decision, alternatives, confidence)


def test_would_have_worked_but_takes_the_rest_of_the_paragraph_as_rationale(tmp_path: Path) -> None:
    [record] = _decisions(
        tmp_path,
        "Moving the step would also have worked, but it hides the conflict. "
        "With the cache in a temp dir, nothing trips over it.\n\nThe change is uncommitted.",
    )
    assert record.rationale == "It hides the conflict. With the cache in a temp dir, nothing trips over it"
    assert record.alternatives == ["Moving the step"]
    assert record.decision == "Not moving the step"  # no winner named: the option turned down


def test_rationale_from_the_clause_or_the_next_sentence(tmp_path: Path) -> None:
    [first, second] = _decisions(
        tmp_path,
        "I decided to store sessions in Redis rather than in Postgres. That way they expire on their own.",
        "I chose SQLite over Postgres because the data is tiny.",
    )
    assert (first.rationale, first.alternatives) == ("That way they expire on their own", ["Postgres"])
    assert (second.decision, second.rationale) == ("I chose SQLite over Postgres", "The data is tiny")


@pytest.mark.parametrize(
    "text",
    [
        "Should I use RS256 rather than HS256?",  # a question
        "If you'd rather keep HS256 instead of RS256, let me know.",  # an offer
        "The function returns None instead of 0.",  # a diagnosis
        "The test failed because it got a list instead of a tuple.",  # a diagnosis
        "The issue is that it reads minutes instead of seconds.",  # a diagnosis
        "Run it with `--flag-a rather than --flag-b` to see.",  # code
        'The docs say "prefer composition over inheritance" somewhere.',  # a quote
        "Now let me update the Justfile for Rust.",
        "I'll iterate over the keys.",  # "over" without a choice
        "Replaced the intro section with a shorter one.",  # an edit reported, not a choice
        "I'll help you redact secrets instead of blocking commits.",  # the request restated
        "The simpler solution is to disable the workflow, or make it manual only.",  # still two options
        "Here's the correct approach:",  # announces, does not say
        # an option weighed before the choice, not the choice
        "The alternative is a server-side bypass for the relay, fewer lines, but it weakens the protection.",
    ],
)
def test_not_decisions(text: str) -> None:
    assert not any(is_decision(s) for s in split_sentences(text))


def test_quoted_document_and_tables_are_not_read(tmp_path: Path) -> None:
    assert (
        _decisions(
            tmp_path,
            "Here it is:\n```python\n# decided to use x instead of y\n```\n"
            "> We chose MySQL over Postgres.\n\n| a | b |\n| I chose x over y | z |\nDone.",
        )
        == []
    )


def test_users_request_restated_by_the_assistant(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Please make the scanner redact secrets instead of blocking the commit.")
    t.say("I'll make the scanner redact secrets instead of blocking the commit.")
    assert read_decisions(t.read(tmp_path)) == []


def test_alternatives_are_whole_phrases_or_none(tmp_path: Path) -> None:
    [record] = _decisions(
        tmp_path,
        "I went with a single job instead of the matrix of nine operating systems and three runtimes and two "
        "package managers per job.",
    )
    assert record.alternatives is None


_PAIRS = [
    ("httpx", "requests"),
    ("pydantic models", "TypedDicts"),
    ("structlog", "the logging module"),
    ("a ThreadPoolExecutor", "raw threads"),
    ("tomllib", "a regex parser"),
    ("pathlib", "os.path joins"),
    ("Click groups", "argparse subparsers"),
    ("an LRU cache", "a global dict"),
    ("UUID7 keys", "serial integers"),
    ("Alembic migrations", "hand-written SQL"),
    ("ruff format", "black"),
    ("pytest fixtures", "setUp methods"),
]


def test_near_duplicates_collapse_and_the_count_is_capped(tmp_path: Path) -> None:
    records = _decisions(
        tmp_path,
        "I decided to use Redis instead of Memcached.",
        "As before, I decided to use Redis instead of Memcached!",
        *[f"I decided to use {a} instead of {b}." for a, b in _PAIRS],
    )
    assert records[0].decision == "I decided to use Redis instead of Memcached"
    assert not any("As before" in r.decision for r in records)
    assert len(records) == MAX_DECISIONS


def test_the_surest_are_kept_when_there_are_too_many(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Build it.")
    for a, b in _PAIRS:
        t.say(f"I'll use {a} instead of {b}.")
    t.say("**Decision:** ship on Fridays only")
    records = read_decisions(t.read(tmp_path))
    assert len(records) == MAX_DECISIONS
    assert records[-1].decision == "ship on Fridays only"


def test_every_answer_the_user_gave_is_kept_beyond_the_cap(tmp_path: Path) -> None:
    """Twelve questions answered are twelve choices the user made; the cap is on what prose says."""
    t = TranscriptBuilder()
    t.user("Set up the project.")
    for n, (a, b) in enumerate(_PAIRS[:12]):
        question = {
            "question": f"Which tool for part {n}?",
            "header": f"Part {n}",
            "options": [{"label": a, "description": ""}, {"label": b, "description": ""}],
            "multiSelect": False,
        }
        t.call(
            "AskUserQuestion",
            {"questions": [question]},
            f'User has answered your questions: "Which tool for part {n}?"="{a}".',
        )
    for a, b in _PAIRS:
        t.say(f"I'll use {a} for the docs instead of {b}.")
    records = read_decisions(t.read(tmp_path))
    answered = [r for r in records if r.by == "user"]
    assert [r.decision for r in answered] == [
        f"Which tool for part {n}? {a}" for n, (a, _) in enumerate(_PAIRS[:12])
    ]
    assert len(records) - len(answered) <= MAX_DECISIONS


def test_summary_json_round_trips_and_older_summaries_load() -> None:
    base = {
        "session_id": "s",
        "objective": "Add auth",
        "outcome": "completed",
        "message_count": 1,
        "duration_minutes": 1,
    }
    new = EnhancedSessionSummary.model_validate(
        {**base, "key_decisions": [{"decision": "Use RS256", "confidence": 0.9, "by": "user"}]}
    )
    assert EnhancedSessionSummary.model_validate_json(new.model_dump_json()) == new
    old = EnhancedSessionSummary.model_validate({**base, "key_decisions": [{"decision": "Use RS256"}]})
    assert old.key_decisions is not None
    assert (old.key_decisions[0].confidence, old.key_decisions[0].by) == (None, None)
    with pytest.raises(ValueError):
        DecisionRecord(decision="x", confidence=1.5)


def test_real_transcript_rust_port() -> None:
    """The port's closing summary lists 'Used Result<T, E> instead of raising exceptions'."""
    records = read_decisions(read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl"))
    assert records == [
        DecisionRecord(
            decision="Used Result<T, E> instead of raising exceptions for factorial()",
            alternatives=["raising exceptions"],
            confidence=STATED,
            by="assistant",
        )
    ]


def test_real_transcripts_without_decisions() -> None:
    for name in (
        "coverage-test-fix.jsonl",
        "hello-world-script.jsonl",
        "stop-hook-uncommitted-changes.jsonl",
    ):
        assert read_decisions(read_transcript(TRANSCRIPTS / name)) == []


def test_a_choice_worded_in_the_assistants_thinking(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Make the settings loader strict.")
    t.think(
        "The user is right - I should use the built-in `DisallowUnknownFields()` of `json.Decoder` instead "
        "of maintaining a separate list of keys.",
        text="Let me revise the loader.",
    )
    t.think("Maybe I could use a map here, or a struct?")  # wondering is not choosing
    (found,) = read_decisions(t.read(tmp_path))
    assert found.decision.startswith("I should use the built-in DisallowUnknownFields() of json.Decoder")
    assert found.alternatives == ["maintaining a separate list of keys"] and found.confidence == INTENDED


def test_a_failed_command_rerun_with_a_bypass_flag_is_a_choice(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Commit it.")
    t.bash(
        'git commit -m "Add sync"',
        "error: gpg failed to sign the data\nfatal: failed to write commit object",
        is_error=True,
    )
    t.bash('git commit --no-gpg-sign -m "Add sync"', "[main 1a2b3c] Add sync")
    t.bash(
        "git add notes/secret-plan.md",
        "The following paths are ignored by one of your .gitignore files:\nnotes",
        is_error=True,
    )
    t.bash("git add notes/secret-plan.md", "")  # the same again: no flag, no choice
    t.bash("rm -f build.log", "")  # a flag with no failure before it
    (found,) = read_decisions(t.read(tmp_path))
    assert (
        found.decision == "Re-ran `git commit --no-gpg-sign -m …` with --no-gpg-sign to get past the failure"
    )
    assert found.rationale.startswith("It failed with: error: gpg failed to sign the data")
    assert found.confidence == STATED


def test_one_choice_said_in_two_places_is_one_decision(tmp_path: Path) -> None:
    found = _decisions(
        tmp_path,
        "I'll use the GitHub App token flow instead of a personal access token.",
        "I need to update the plan with the GitHub App token flow instead of the PAT approach.",
    )
    assert len(found) == 1


def test_a_pronoun_judged_right_is_not_a_decision(tmp_path: Path) -> None:
    assert _decisions(tmp_path, "This is the correct approach for using GitHub Apps with GoReleaser.") == []


def test_an_action_with_the_fact_that_makes_it_a_choice(tmp_path: Path) -> None:
    found = _decisions(
        tmp_path,
        "There's already a `fileExists` in `common.go`. I need to remove my duplicate.",
        "There are other unstaged changes beyond the provider fix. I'll only commit the file we changed:",
        "Let me fix the test file by removing the testing library import since it's just for demonstration:",
    )
    assert [(d.decision, d.rationale, d.confidence) for d in found] == [
        ("I need to remove my duplicate", "There's already a fileExists in common.go", REASONED),
        (
            "I'll only commit the file we changed",
            "There are other unstaged changes beyond the provider fix",
            REASONED,
        ),
        (
            "Let me fix the test file by removing the testing library import",
            "It's just for demonstration",
            REASONED,
        ),
    ]


def test_actions_without_a_choice_in_them_are_not_decisions(tmp_path: Path) -> None:
    assert (
        _decisions(
            tmp_path,
            "I see the issue. Let me fix this:",  # nothing a reader can act on
            "There are no existing tests. Let me create a test to verify the strict parsing.",  # checking
            "Let me update the README because the flag was renamed.",  # a reason, but no choice of means
            "The build failed. Let me fix the import.",  # a failure is not the fact that makes a choice
        )
        == []
    )


def test_plan_items_that_say_why_and_options_judged_against_each_other(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user(
        "Implement the following plan:\n\n# Hook chaining\n\n## Implementation\n\n"
        "- Print the backup notice to stderr (always, even when `silent`, since this is an important message).\n"
        "- `hooks.go` — core install logic\n\n"
        'Uses `dirname "$0"` to resolve the hooks directory — works correctly with worktrees.\n'
    )
    t.say(
        "## Why bash is the right template\n\nA small dedicated `omp.yash` script is cheaper and safer than "
        "unifying the two scripts."
    )
    found = read_decisions(t.read(tmp_path))
    assert [(d.decision, d.rationale, d.alternatives) for d in found] == [
        (
            "Print the backup notice to stderr (always, even when silent)",
            "This is an important message",
            None,
        ),
        ('Uses dirname "$0" to resolve the hooks directory', "Works correctly with worktrees", None),
        ("bash is the right template", "", None),
        (
            "A small dedicated omp.yash script is cheaper and safer than unifying the two scripts",
            "",
            ["unifying the two scripts"],
        ),
    ]


def test_a_merge_conflict_resolved_side_by_side(tmp_path: Path) -> None:
    (found,) = _decisions(
        tmp_path,
        "Clear picture now. The resolved version needs:\n"
        "1. **Your branch's** `resolveAgentType` helper (the fix for agent name misattribution)\n"
        '2. **origin/main\'s** extra `""` parameter for `userPrompt` in `initializeSession`',
    )
    assert found.decision == (
        "Resolve the merge conflict keeping Your branch's resolveAgentType helper; "
        'origin/main\'s extra "" parameter for userPrompt in initializeSession'
    )
    assert found.rationale == "The fix for agent name misattribution" and found.confidence == STATED


def test_the_variant_to_prefer_is_a_choice(tmp_path: Path) -> None:
    (found,) = _decisions(
        tmp_path,
        "`YASH_PS1` takes precedence over `PS1` in yash, which is the polite variant to set.",
    )
    assert found.decision == "YASH_PS1 takes precedence over PS1 in yash, which is the polite variant to set"


def test_forms_below_the_floor_are_read_but_not_kept(tmp_path: Path) -> None:
    """An intention (0.5) and an action with its reason (0.4) are not recorded by default."""
    t = TranscriptBuilder()
    t.user("Sign the tokens.")
    t.say("I'll use RS256 rather than HS256.")
    session = t.read(tmp_path)
    assert [d.confidence for d in read_decisions(session)] == [0.5]
    assert extract_decisions(session) == []
