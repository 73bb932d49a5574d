"""Passwords inside URIs are masked wherever a URI is named; the rest of the URI stays readable."""

from __future__ import annotations

import pytest

from graphiti_session_tracking.uri import mask_uri


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("bolt://neo4j:s3cret@host:7687", "bolt://neo4j:***@host:7687"),
        ("redis://:pw@host:6379", "redis://:***@host:6379"),
        ("neo4j+s://user:pw@x", "neo4j+s://user:***@x"),
        (
            "cannot reach Neo4j at bolt://u:p%40ss@10.0.0.1:7687: timed out",
            "cannot reach Neo4j at bolt://u:***@10.0.0.1:7687: timed out",
        ),
        (
            "invalid Neo4j URI 'neo4jx://u:a:b/c@h': expected",
            "invalid Neo4j URI 'neo4jx://u:***@h': expected",
        ),
        ("raw @ in it: redis://u:p@ss@h:1 done", "raw @ in it: redis://u:***@h:1 done"),
        ("two: bolt://a:1@h1 and redis://:2@h2", "two: bolt://a:***@h1 and redis://:***@h2"),
        ("already bolt://u:***@h", "already bolt://u:***@h"),
    ],
)
def test_the_password_is_masked_and_scheme_user_host_port_kept(text: str, masked: str) -> None:
    assert mask_uri(text) == masked
    assert mask_uri(masked) == masked


@pytest.mark.parametrize(
    "text",
    [
        "bolt://localhost:7687",
        "redis://host:6379/0",
        "user@example.com wrote",
        "https://github.com/a/b",
        "a: b@c",
    ],
)
def test_text_without_a_password_is_left_alone(text: str) -> None:
    assert mask_uri(text) == text
