"""Values read out of another program's JSON, which may hold anything: a field is used only when
it has the type a reader expects (what else it holds becomes a problem or is left out there)."""

from __future__ import annotations

from typing import Any

__all__ = ["object_field", "text_field"]


def text_field(container: dict[str, Any], key: str) -> str | None:
    value = container.get(key)
    return value if isinstance(value, str) else None


def object_field(container: dict[str, Any], key: str) -> dict[str, Any]:
    value = container.get(key)
    return value if isinstance(value, dict) else {}
