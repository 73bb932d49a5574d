"""Shared vocabulary of the heuristics: name words, intent→activity signals, signal arithmetic."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .model import ToolDomain, ToolIntent

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_words(name: str) -> list[str]:
    """The lowercase words of a name, split on `_ - . / :`, spaces and camelCase.

    Heuristics match whole words: a substring match would read `address` as `add` and `latest`
    as `test`.
    """
    words: list[str] = []
    for part in re.split(r"[\s_\-./:]+", name):
        words.extend(w.lower() for w in _CAMEL.findall(part))
    return words


# Spec 3.4's fallback table: what an intent usually says about the session.
_INTENT_SIGNALS: dict[ToolIntent, dict[str, float]] = {
    ToolIntent.CREATE: {"building": 0.4, "configuring": 0.1},
    ToolIntent.MODIFY: {"fixing": 0.3, "refactoring": 0.3, "building": 0.2},
    ToolIntent.DELETE: {"refactoring": 0.3, "fixing": 0.2},
    ToolIntent.READ: {"exploring": 0.4, "reviewing": 0.3},
    ToolIntent.SEARCH: {"exploring": 0.5, "fixing": 0.1},
    ToolIntent.EXECUTE: {"testing": 0.2, "building": 0.2},
    ToolIntent.CONFIGURE: {"configuring": 0.6},
    ToolIntent.VALIDATE: {"testing": 0.5, "reviewing": 0.2, "fixing": 0.1},
    ToolIntent.COMMUNICATE: {"building": 0.1, "exploring": 0.1},
    ToolIntent.TRANSFORM: {"building": 0.3, "refactoring": 0.2},
}

_DOMAIN_BONUS: dict[ToolDomain, dict[str, float]] = {
    ToolDomain.TESTING: {"testing": 0.3},
    ToolDomain.DOCUMENTATION: {"documenting": 0.4},
    ToolDomain.PACKAGE: {"configuring": 0.2},
    ToolDomain.VERSION_CONTROL: {"building": 0.1},
}


def intent_signals(intent: ToolIntent, domain: ToolDomain) -> dict[str, float]:
    """Signals for a tool we only know by intent and domain (name heuristics, fallbacks)."""
    return merge_signals(_INTENT_SIGNALS[intent], _DOMAIN_BONUS.get(domain, {}))


def merge_signals(*parts: Mapping[str, float], weights: Iterable[float] | None = None) -> dict[str, float]:
    """Weighted sum of signal maps, each dimension capped at 1.0 (a signal is an intensity)."""
    factors = list(weights) if weights is not None else [1.0] * len(parts)
    total: dict[str, float] = {}
    for part, factor in zip(parts, factors, strict=True):
        for name, value in part.items():
            total[name] = total.get(name, 0.0) + value * factor
    return {name: round(min(1.0, value), 3) for name, value in total.items() if value > 0}


def scale_signals(signals: Mapping[str, float], factor: float) -> dict[str, float]:
    return merge_signals(signals, weights=[factor])
