"""The summary .json loader under fuzzing: whatever the file holds, the loader returns a summary or
raises SourceError naming the file and the line of the problem; nothing else escapes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphiti_session_tracking.pipeline.sources import SourceError, load_summary_file
from graphiti_session_tracking.summary import EnhancedSessionSummary, extract_summary
from graphiti_session_tracking.transcripts import read_transcript

VALID: dict[str, Any] = json.loads(
    extract_summary(read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")).model_dump_json()
)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


def load(path: Path, content: str | bytes) -> EnhancedSessionSummary | str:
    """The summary, or the rejection message (which must name the file and a line)."""
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    try:
        return load_summary_file(path)
    except SourceError as exc:
        message = str(exc)
        assert re.match(rf"{re.escape(str(path))}:\d+: ", message), message
        return message


def test_a_valid_summary_loads(tmp_path: Path) -> None:
    loaded = load(tmp_path / "s.json", json.dumps(VALID))
    assert isinstance(loaded, EnhancedSessionSummary) and loaded.session_id == VALID["session_id"]


@FUZZ
@given(content=st.text(max_size=300) | st.binary(max_size=300))
def test_arbitrary_content_never_crashes(tmp_path: Path, content: str | bytes) -> None:
    load(tmp_path / "s.json", content)


@FUZZ
@given(field=st.sampled_from(sorted(VALID)), value=json_values)
def test_a_wrong_field_is_reported_at_its_line(tmp_path: Path, field: str, value: Any) -> None:
    text = json.dumps({**VALID, field: value}, indent=2)
    loaded = load(tmp_path / "s.json", text)
    if isinstance(loaded, str) and re.search(rf"not a session summary: {re.escape(field)}[.:]", loaded):
        # One top-level key per line: the line named lies within the field's own lines.
        lines = text.splitlines()
        starts = [i for i, line in enumerate(lines, 1) if re.match(r'  "[^"]+": ', line)]
        first = next(i for i in starts if lines[i - 1].startswith(f'  "{field}": '))
        last = next((i - 1 for i in starts if i > first), len(lines))
        assert first <= int(loaded.split(":")[1]) <= last, loaded


@FUZZ
@given(field=st.sampled_from(sorted(VALID)))
def test_a_missing_field_is_reported_or_defaulted(tmp_path: Path, field: str) -> None:
    data = {k: v for k, v in VALID.items() if k != field}
    load(tmp_path / "s.json", json.dumps(data, indent=2))


def test_deep_nesting_and_a_cut_file_are_rejected_with_a_line(tmp_path: Path) -> None:
    assert "nested too deeply" in str(load(tmp_path / "deep.json", "[" * 100_000))
    text = json.dumps(VALID, indent=2)
    cut = load(tmp_path / "cut.json", text[: len(text) // 2])
    assert isinstance(cut, str) and "invalid JSON" in cut
    assert int(cut.split(":")[1]) == len(text[: len(text) // 2].splitlines())


def test_the_line_of_a_nested_bad_value(tmp_path: Path) -> None:
    data = {**VALID, "key_decisions": [{"decision": "a", "rationale": "b"}, {"decision": 5, "rationale": []}]}
    text = json.dumps(data, indent=2)
    message = load(tmp_path / "s.json", text)
    assert isinstance(message, str) and "key_decisions.1" in message
    expected = next(i for i, line in enumerate(text.splitlines(), 1) if '"decision": 5' in line)
    assert int(message.split(":")[1]) == expected
