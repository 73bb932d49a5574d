"""What the reader keeps of a long tool text: its head and tail, and the failures between."""

from __future__ import annotations

from graphiti_session_tracking.transcripts.spill import MIDDLE_LIMIT, TEXT_LIMIT, head_and_tail


def test_a_short_text_is_kept_whole() -> None:
    assert head_and_tail("ok\n" * 100) == "ok\n" * 100


def test_the_failing_lines_of_a_cut_middle_are_kept_with_what_follows_them() -> None:
    text = "".join(f"--- PASS: TestA{n} (0.00s)\n" for n in range(400))
    text += "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 2, want 3\n"
    text += "".join(f"--- PASS: TestB{n} (0.00s)\n" for n in range(400))

    kept = head_and_tail(text)

    assert "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 2, want 3" in kept
    assert kept.startswith(text[: TEXT_LIMIT // 4]) and kept.endswith(text[-(TEXT_LIMIT - TEXT_LIMIT // 4) :])
    assert "characters cut; the lines among them that read as failures" in kept


def test_what_is_kept_of_the_middle_is_bounded_however_much_fails() -> None:
    text = "Error: again\n" * 100_000
    assert len(head_and_tail(text)) < TEXT_LIMIT + MIDDLE_LIMIT + 200
    plain = "x" * 10_000_000  # no line to keep, one line: the head and the tail only
    assert len(head_and_tail(plain)) < TEXT_LIMIT + 100


def test_a_failing_line_just_before_the_tail_is_kept_though_what_it_logged_is_in_the_tail() -> None:
    tail = "ok\n" * (TEXT_LIMIT // 4)  # 6,000 characters: the tail kept is all "ok" but its start
    text = "ok\n" * 3000 + "not ok 9 parses dates\n" + tail
    assert head_and_tail(text).count("not ok 9 parses dates") == 1
