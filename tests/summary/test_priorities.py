"""Extraction priorities and the dynamic instructions (spec section 5, section 9 tests made real)."""

from __future__ import annotations

import pytest

from graphiti_session_tracking.activity import ActivityVector
from graphiti_session_tracking.summary.priorities import (
    compute_extraction_priority,
    dynamic_extraction_instructions,
    get_extraction_fields,
)


def test_fixing_session_prioritizes_errors_over_discoveries() -> None:
    debugging = ActivityVector(fixing=0.9, configuring=0.6, testing=0.4)
    assert compute_extraction_priority("errors_resolved", debugging) > 0.6
    assert compute_extraction_priority("discoveries", debugging) == 0.0
    fields = get_extraction_fields(debugging)
    assert fields[0] == "errors_resolved" and "discoveries" not in fields


def test_exploration_prioritizes_discoveries() -> None:
    fields = get_extraction_fields(ActivityVector(exploring=1.0, reviewing=0.7))
    assert fields[0] == "discoveries" and "config_changes" not in fields


def test_priority_is_normalized_and_unknown_fields_are_neutral() -> None:
    full = ActivityVector(**{d: 1.0 for d in ActivityVector.model_fields})
    assert compute_extraction_priority("config_changes", full) == pytest.approx(1.0)
    assert compute_extraction_priority("no_such_field", full) == 0.5


def test_instructions_list_only_important_fields_in_order() -> None:
    text = dynamic_extraction_instructions(ActivityVector(configuring=1.0, fixing=0.5))
    assert text.index("config_changes") < text.index("errors_resolved")
    assert "discoveries" not in text and "test_results" not in text
    assert "objective" in text and "outcome" in text


def test_mixed_session_still_gets_instructions() -> None:
    text = dynamic_extraction_instructions(ActivityVector())
    assert "1. **completed_tasks**" in text and "next_steps" in text
