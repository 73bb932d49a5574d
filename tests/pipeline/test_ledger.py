"""The ledger's key of a source is its resolved path, worked out with each folder looked up once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphiti_session_tracking.pipeline import ledger
from graphiti_session_tracking.pipeline.ledger import resolved


def test_the_key_is_the_resolved_path_whatever_its_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.jsonl").touch()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    (tmp_path / "a" / "b" / "alias.jsonl").symlink_to(tmp_path / "a" / "b" / "f.jsonl")
    monkeypatch.chdir(tmp_path)
    forms = [
        tmp_path / "link" / "b" / "f.jsonl",  # through a linked folder
        Path("link/b/f.jsonl"),  # relative
        Path(f"{tmp_path}/link/b/../b/f.jsonl"),  # `..` after a link: the link first, as the system does
        tmp_path / "a" / "b" / "alias.jsonl",  # a link as the last part
        Path("a/./b/f.jsonl"),
        Path(f"{tmp_path}/a//b/f.jsonl"),
        tmp_path / "gone" / "x.jsonl",  # a source that is not there (yet)
    ]
    for form in forms:
        assert resolved(form) == str(form.resolve()), form


def test_a_folder_replaced_by_a_link_is_followed_once_its_lookup_expires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "moved").mkdir()
    source = tmp_path / "real" / "s.jsonl"
    assert resolved(source) == str(tmp_path / "real" / "s.jsonl")
    (tmp_path / "real").rmdir()
    os.symlink(tmp_path / "moved", tmp_path / "real")
    monkeypatch.setattr(ledger, "_FOLDER_TTL_S", 0.0)
    assert resolved(source) == str(tmp_path / "moved" / "s.jsonl")
