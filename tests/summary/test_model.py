"""The summary schema: validation with clear errors, JSON round trip, Markdown as in Appendix A."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphiti_session_tracking.activity import ActivityVector
from graphiti_session_tracking.summary import (
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
    TestSummary,
)

APPENDIX_A1 = """# Session Summary

**Activity Profile**: fixing (0.8), configuring (0.7), testing (0.5), exploring (0.4)
**Outcome**: completed

## Objective
Resolve JWT authentication timeout causing 401 errors after config migration

## Errors Resolved

### 401 Unauthorized after ~1 minute
- **Root cause**: `JWT_EXPIRY=60` interpreted as 60 seconds (was meant to be minutes)
- **Fix**: Changed to `JWT_EXPIRY=3600` (explicit seconds)
- **Verification**: Tested token validity over 30 minutes

## Configuration Changes

| File | Setting | Change | Reason |
|------|---------|--------|--------|
| `.env` | `JWT_EXPIRY` | `60` → `3600` | Fix timeout - was ambiguous units |
| `config.py` | `EXPIRY_UNIT` | (none) → `seconds` | Prevent future ambiguity |

## Key Decisions

- **Explicit time units**: Added `EXPIRY_UNIT` setting to prevent unit ambiguity
  - Alternatives considered: Document-only fix, use ISO 8601 duration format

## Test Results

- **Framework**: pytest
- **Results**: 12/12 passed
- **Coverage**: 87.3%

## Files Modified

- `.env`
- `config.py`
- `tests/test_auth.py`

## Next Steps

- Add config schema validation to CI pipeline
- Document time format conventions in CONFIGURATION.md
"""


def a1() -> EnhancedSessionSummary:
    return EnhancedSessionSummary(
        session_id="3f1c2a9b-0000",
        activity_vector=ActivityVector(building=0.1, fixing=0.8, configuring=0.7, exploring=0.4, testing=0.5),
        objective="Resolve JWT authentication timeout causing 401 errors after config migration",
        outcome="completed",
        errors_resolved=[
            ErrorResolution(
                error="401 Unauthorized after ~1 minute",
                root_cause="`JWT_EXPIRY=60` interpreted as 60 seconds (was meant to be minutes)",
                fix="Changed to `JWT_EXPIRY=3600` (explicit seconds)",
                verification="Tested token validity over 30 minutes",
            )
        ],
        config_changes=[
            ConfigChange(
                file=".env",
                setting="JWT_EXPIRY",
                old_value="60",
                new_value="3600",
                reason="Fix timeout - was ambiguous units",
            ),
            ConfigChange(
                file="config.py",
                setting="EXPIRY_UNIT",
                old_value=None,
                new_value="seconds",
                reason="Prevent future ambiguity",
            ),
        ],
        key_decisions=[
            DecisionRecord(
                decision="Explicit time units",
                rationale="Added `EXPIRY_UNIT` setting to prevent unit ambiguity",
                alternatives=["Document-only fix", "use ISO 8601 duration format"],
            )
        ],
        test_results=TestSummary(framework="pytest", total=12, passed=12, failed=0, coverage_pct=87.3),
        files_modified=[".env", "config.py", "tests/test_auth.py"],
        next_steps=[
            "Add config schema validation to CI pipeline",
            "Document time format conventions in CONFIGURATION.md",
        ],
    )


def test_markdown_matches_appendix_a() -> None:
    assert a1().to_markdown() == APPENDIX_A1


def test_long_errors_are_cut_at_60_with_one_ellipsis_and_short_ones_are_not() -> None:
    long = "ImportError: cannot import name 'frobnicate' from 'widgets.core' (/srv/app/widgets/core.py)"
    summary = a1().model_copy(
        update={"errors_resolved": [ErrorResolution(error=long), ErrorResolution(error="E1")]}
    )
    headings = [line for line in summary.to_markdown().splitlines() if line.startswith("### ")]
    assert headings[0] == "### " + long[:59] + "…" and len(headings[0]) == 64
    assert headings[1] == "### E1"
    assert "..." not in summary.to_markdown()
    # nothing of the line is lost: cut in the heading, it is given whole under it (a short one is not)
    lines = summary.to_markdown().splitlines()
    assert lines[lines.index(headings[0]) + 1] == f"- **Error**: {long}"
    assert not lines[lines.index(headings[1]) + 1].startswith("- **Error**")


def test_a_typescript_error_heading_says_what_went_wrong_before_where() -> None:
    ts = (
        "src/app/(protected)/teams/TeamSheet.tsx(52,53): error TS2345: Argument of type 'X' is not assignable"
    )
    summary = a1().model_copy(update={"errors_resolved": [ErrorResolution(error=ts)]})
    headings = [line for line in summary.to_markdown().splitlines() if line.startswith("### ")]
    assert headings == ["### error TS2345: Argument of type 'X' is not assignable (TeamSheet.tsx:52)"]


def test_an_error_heading_says_what_went_wrong_before_where() -> None:
    go = "cmd/cli/integration_test/last_id_test.go:76:31: invalid operation: a != b (mismatched types id.ID and string)"
    summary = a1().model_copy(update={"errors_resolved": [ErrorResolution(error=go)]})
    headings = [line for line in summary.to_markdown().splitlines() if line.startswith("### ")]
    assert headings == [
        "### invalid operation: a != b (mismatched types id.ID and strin… (last_id_test.go:76)"
    ]


def test_an_error_never_seen_resolved_has_its_own_section() -> None:
    summary = a1().model_copy(
        update={
            "errors_resolved": [
                ErrorResolution(error="E1", fix="Edited a.py"),
                ErrorResolution(error="E2", root_cause="the port is taken"),
            ]
        }
    )
    text = summary.to_markdown()
    resolved, _, rest = text.partition("## Errors Not Resolved")
    assert "## Errors Resolved\n\n### E1\n- **Fix**: Edited a.py" in resolved and "E2" not in resolved
    assert rest.startswith("\n\n### E2\n- **Root cause**: the port is taken\n")


def test_json_round_trip_is_exact() -> None:
    summary = a1()
    assert EnhancedSessionSummary.model_validate_json(summary.model_dump_json()) == summary


def test_files_section_says_none_for_exploration() -> None:
    summary = EnhancedSessionSummary(session_id="s", objective="Understand auth", outcome="completed")
    assert "## Files Modified\n\n- (none)" in summary.to_markdown()
    assert "**Activity Profile**: mixed activity" in summary.to_markdown()


@pytest.mark.parametrize(
    ("update", "message"),
    [
        ({"outcome": "maybe"}, "outcome"),
        ({"message_count": -1}, "message_count"),
        ({"session_id": ""}, "session_id"),
    ],
)
def test_bad_values_are_named(update: dict[str, object], message: str) -> None:
    data = {**a1().model_dump(), **update}
    with pytest.raises(ValidationError, match=message):
        EnhancedSessionSummary.model_validate(data)


def test_test_counts_must_add_up() -> None:
    with pytest.raises(
        ValidationError, match=r"passed \(10\) \+ failed \(3\) \+ skipped \(0\) exceeds total \(12\)"
    ):
        TestSummary(framework="pytest", total=12, passed=10, failed=3)
    with pytest.raises(ValidationError, match="coverage_pct"):
        TestSummary(framework="pytest", total=1, passed=1, failed=0, coverage_pct=120)
