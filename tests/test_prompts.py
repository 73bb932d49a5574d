"""The default prompt templates ship inside the package (top-level prompts/ in the repository)."""

from __future__ import annotations

from importlib import resources


def test_default_templates_are_package_resources_with_content_slot() -> None:
    folder = resources.files("graphiti_session_tracking.prompts")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md"))
    assert names == [
        "default-agent-messages.md",
        "default-session-summary.md",
        "default-tool-content.md",
        "default-user-messages.md",
    ]
    for name in names:
        assert "{content}" in folder.joinpath(name).read_text(encoding="utf-8")
