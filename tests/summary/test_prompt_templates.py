"""Prompt templates: built-in ones ship in the package; resolution order; problems fall back."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from graphiti_session_tracking.summary.prompts import TEMPLATE_FILES, builtin_template, resolve_template


def test_default_templates_are_package_resources_with_content_slot() -> None:
    folder = resources.files("graphiti_session_tracking.prompts")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md"))
    assert names == sorted(TEMPLATE_FILES.values())
    for name in names:
        assert "{content}" in folder.joinpath(name).read_text(encoding="utf-8")


def test_project_overrides_home_overrides_builtin(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    assert resolve_template("default", "session_summary", project, home).origin == "built-in"
    (home / "prompts").mkdir(parents=True)
    (home / "prompts" / "default-session-summary.md").write_text("HOME {content}")
    assert resolve_template("default", "session_summary", project, home).text == "HOME {content}"
    (project / ".graphiti" / "prompts").mkdir(parents=True)
    (project / ".graphiti" / "prompts" / "default-session-summary.md").write_text("PROJECT {content}")
    resolved = resolve_template("default", "session_summary", project, home)
    assert resolved.text == "PROJECT {content}" and resolved.problems == ()


def test_path_relative_to_home_and_inline(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "short.md").write_text("Short: {content} in {max_chars}")
    assert (
        resolve_template("short.md", "session_summary", home=tmp_path).render(content="X", max_chars=9)
        == "Short: X in 9"
    )
    absolute = tmp_path / "abs.md"
    absolute.write_text("Abs {content}")
    assert resolve_template(str(absolute), "session_summary", home=tmp_path).origin == str(absolute)
    inline = resolve_template("Summarize: {content}", "session_summary", home=tmp_path)
    assert inline.origin == "inline" and inline.render(content="hi") == "Summarize: hi"


def test_literal_braces_and_escapes_survive() -> None:
    template = resolve_template(
        'Return {"a": 1} for {content}; write {{content}} literally', "session_summary"
    )
    assert template.problems == ()
    assert template.render(content="X") == 'Return {"a": 1} for X; write {content} literally'


def test_bad_templates_are_reported_and_builtin_is_used(tmp_path: Path) -> None:
    builtin = builtin_template("session_summary").text
    no_content = resolve_template("Summarize the session please {context}", "session_summary", home=tmp_path)
    assert no_content.text == builtin and "no {content}" in no_content.problems[0]
    unknown = resolve_template("{content} {colour}", "session_summary", home=tmp_path)
    assert unknown.text == builtin and "unknown variable {colour}" in unknown.problems[0]
    missing = resolve_template("nope.md", "session_summary", home=tmp_path)
    assert missing.text == builtin and "template file not found: nope.md" in missing.problems[0]
