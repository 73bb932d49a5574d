"""The persistent cache: round trip, bad files reported and replaced, two writers at once."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from graphiti_session_tracking.tools import (
    CACHE_VERSION,
    ClassificationCache,
    ToolDomain,
    ToolIntent,
    Verdict,
)
from graphiti_session_tracking.tools.cache import bash_exact_key, params_digest, tool_keys


def _verdict(reason: str = "r") -> Verdict:
    return Verdict(
        intent=ToolIntent.SEARCH,
        domain=ToolDomain.CODE,
        confidence=0.9,
        reasoning=reason,
        activity_signals={"exploring": 0.5},
    )


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.json"
    cache = ClassificationCache(path)
    exact, pattern = tool_keys("mcp__x__find", {"q": 1})
    cache.put(exact, pattern, _verdict())
    assert cache.save()
    data = json.loads(path.read_text())
    assert data["version"] == CACHE_VERSION
    assert set(data["exact"]) == {exact} and set(data["pattern"]) == {pattern}
    again = ClassificationCache(path)
    assert again.get_exact(exact) == _verdict()
    assert again.get_pattern(pattern) == _verdict()
    assert again.problems == []


def test_keys_are_normalised() -> None:
    assert params_digest({"b": 1, "a": 2, "c": None}) == params_digest({"a": 2, "b": 1})
    assert params_digest({"a": 1}) != params_digest({"a": 2})
    assert bash_exact_key("  ls -la ") == bash_exact_key("ls -la")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"version": 99, "exact": {}, "pattern": {}}), "unsupported cache version 99"),
        (json.dumps({"version": CACHE_VERSION, "exact": [], "pattern": {}}), "'exact' is not an object"),
        (json.dumps({"entries": {}}), "unsupported cache version None"),
    ],
)
def test_bad_file_is_reported_and_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: str, reason: str
) -> None:
    path = tmp_path / "cache.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING):
        cache = ClassificationCache(path)
    assert len(cache.problems) == 1 and reason in cache.problems[0]
    assert reason in caplog.text
    assert json.loads(path.read_text()) == {"version": CACHE_VERSION, "exact": {}, "pattern": {}}
    assert (tmp_path / "cache.json.bad").read_text() == content
    cache.put("e", "p", _verdict())
    assert cache.save()
    assert ClassificationCache(path).get_exact("e") == _verdict()


def test_invalid_entries_are_dropped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    good = _verdict().model_dump(mode="json")
    bad = {**good, "activity_signals": {"dancing": 0.5}}
    path.write_text(json.dumps({"version": CACHE_VERSION, "exact": {"a": good, "b": bad}, "pattern": {}}))
    cache = ClassificationCache(path)
    assert cache.get_exact("a") == _verdict()
    assert cache.get_exact("b") is None
    assert cache.problems == [f"{path}: dropped 1 invalid cache entry"]


def test_unwritable_location_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = ClassificationCache(blocker / "cache.json")  # parent is a file: cannot create
    cache.put("e", "p", _verdict())
    assert cache.save() is False
    assert "cannot write" in cache.problems[-1]
    assert cache.get_exact("e") == _verdict()  # still usable in memory


def test_save_merges_what_another_writer_saved(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    first, second = ClassificationCache(path), ClassificationCache(path)
    first.put("e1", "p1", _verdict("one"))
    second.put("e2", "p2", _verdict("two"))
    assert first.save() and second.save()
    data = json.loads(path.read_text())
    assert set(data["exact"]) == {"e1", "e2"}
    assert second.get_exact("e1") == _verdict("one")  # picked up while merging


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from graphiti_session_tracking.tools import ClassificationCache, ToolDomain, ToolIntent, Verdict

    path, tag = Path(sys.argv[1]), sys.argv[2]
    verdict = Verdict(intent=ToolIntent.READ, domain=ToolDomain.CODE, confidence=0.8, reasoning=tag)
    for i in range(25):
        cache = ClassificationCache(path)
        cache.put(f"{tag}-{i}", f"{tag}-p{i}", verdict)
        assert cache.save(), cache.problems
        assert not cache.problems, cache.problems
    """
)


def test_two_processes_writing_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), tag], stderr=subprocess.PIPE, text=True)
        for tag in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    data = json.loads(path.read_text())
    assert data["version"] == CACHE_VERSION
    assert set(data["exact"]) == {f"{t}-{i}" for t in "ab" for i in range(25)}
    assert len(data["pattern"]) == 50
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".cache.json.*"))


def test_home_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config file names the cache as `~/…`; it lands in the home folder, not in `./~`."""
    monkeypatch.setenv("HOME", str(tmp_path))
    from graphiti_session_tracking.tools import default_cache_path

    assert default_cache_path() == tmp_path / ".graphiti" / "tool_classification_cache.json"
    cache = ClassificationCache(Path("~/.graphiti/c.json"))
    cache.put("e", "p", _verdict())
    assert cache.save()
    assert (tmp_path / ".graphiti" / "c.json").is_file()
