"""What is true now, and have we seen this before: superseded settings end, recurring errors link
to their earlier occurrences — the same graph whatever order the sessions arrive in."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from graph.test_writer import dump

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.summary.model import ConfigChange, EnhancedSessionSummary, ErrorResolution

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def session(
    n: int,
    *,
    expiry: str | None = None,
    error: str | None = None,
    fix: str = "",
    project: str = "/work/shop",
) -> EnhancedSessionSummary:
    """Session n of a project, a day after session n-1; it may set JWT_EXPIRY and hit an error."""
    return EnhancedSessionSummary(
        session_id=f"s{n}-0000-0000",
        objective=f"work {n}",
        outcome="completed",
        started_at=START + timedelta(days=n),
        ended_at=START + timedelta(days=n, hours=1),
        project_path=project,
        config_changes=[ConfigChange(file=".env", setting="JWT_EXPIRY", old_value=None, new_value=expiry)]
        if expiry
        else None,
        errors_resolved=[ErrorResolution(error=error, fix=fix, verification="`pytest` passed")]
        if error
        else None,
    )


SESSIONS = [
    session(1, expiry="60", error="tests/test_auth.py:12: KeyError: 'exp'", fix="Edited auth.py"),
    session(2, expiry="3600"),
    session(3, error="src/other.py:40: KeyError: 'exp'", fix="Edited tokens.py"),
    session(
        4, expiry="900", error="ModuleNotFoundError: No module named 'jwt'", fix="Ran `pip install pyjwt`"
    ),
    session(5, error="tests/test_auth.py:99: KeyError: 'exp'"),
]


async def config_history(backend: Backend, group: str) -> list[tuple[str, str | None]]:
    """(new value, when it stopped holding) of each JWT_EXPIRY change, in order."""
    rows = await backend.read(
        group,
        "MATCH (s:Entity:Session)-[r:RELATES_TO]->(c:Entity:ConfigChange) "
        "WHERE r.name = 'CHANGED_CONFIG' AND c.group_id = $group_id "
        "RETURN c.new_value AS value, r.valid_at AS since, r.invalid_at AS until, r.expired_at AS expired "
        "ORDER BY since",
        {"group_id": group},
    )
    assert all(str(r["until"]) == str(r["expired"]) for r in rows)
    return [(r["value"], None if r["until"] is None else str(r["until"])[:10]) for r in rows]


async def seen_before(backend: Backend, group: str) -> list[tuple[str, str, str]]:
    rows = await backend.read(
        group,
        "MATCH (a:Entity:ErrorResolution)-[r:RELATES_TO]->(b:Entity:ErrorResolution) "
        "WHERE r.name = 'SEEN_BEFORE' AND a.group_id = $group_id "
        "RETURN a.session_id AS later, b.session_id AS earlier, r.fact AS fact ORDER BY later, earlier",
        {"group_id": group},
    )
    return [(r["later"][:2], r["earlier"][:2], r["fact"]) for r in rows]


async def test_a_later_change_ends_the_earlier_one_and_errors_link_to_their_past(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS))[0].group_id

    assert await config_history(backend, group) == [
        ("60", "2026-03-03"),
        ("3600", "2026-03-05"),
        ("900", None),
    ]
    assert await seen_before(backend, group) == [
        (
            "s3",
            "s1",
            "'src/other.py:40: KeyError: 'exp'' was seen before in session s1-0000-; fixed then by Edited auth.py",
        ),
        (
            "s5",
            "s1",
            "'tests/test_auth.py:99: KeyError: 'exp'' was seen before in session s1-0000-; fixed then by Edited auth.py",
        ),
        (
            "s5",
            "s3",
            "'tests/test_auth.py:99: KeyError: 'exp'' was seen before in session s3-0000-; fixed then by Edited tokens.py",
        ),
    ]


async def test_any_order_gives_the_same_graph(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS))[0].group_id
    driver = await backend.driver_for(group)
    in_order = await dump(driver, group)
    shuffled = list(SESSIONS)
    for seed in (1, 2):
        random.Random(seed).shuffle(shuffled)
        await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
        for one in shuffled[:3]:
            await writer.ingest(one)
        await writer.ingest_many(shuffled[3:])
        assert await dump(driver, group) == in_order, seed


async def test_replacing_a_session_recomputes_what_it_touched(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS))[0].group_id
    without = session(2)  # session 2 re-summarized: it no longer changes the setting
    third = session(3)  # nor does session 3 hit the error any more
    await writer.ingest_many([without, third])

    assert await config_history(backend, group) == [("60", "2026-03-05"), ("900", None)]
    assert [(later, earlier) for later, earlier, _ in await seen_before(backend, group)] == [("s5", "s1")]


async def test_a_later_batch_writes_its_own_links_and_leaves_the_chain_alone(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS[:3]))[0].group_id
    driver = await backend.driver_for(group)
    # A mark on the stored link: rewriting it (SET r = props) would wipe it.
    await driver.execute_query(
        "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) WHERE r.name = 'SEEN_BEFORE' AND r.group_id = $g "
        "SET r.mark = 'kept'",
        g=group,
    )
    await writer.ingest_many(SESSIONS[3:])

    rows = await backend.read(
        group,
        "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) WHERE r.name = 'SEEN_BEFORE' AND r.group_id = $group_id "
        "RETURN a.session_id AS later, b.session_id AS earlier, r.mark AS mark ORDER BY later, earlier",
        {"group_id": group},
    )
    assert [(r["later"][:2], r["earlier"][:2], r["mark"]) for r in rows] == [
        ("s3", "s1", "kept"),
        ("s5", "s1", None),
        ("s5", "s3", None),
    ]
    # And the graph is the one a single batch writes.
    await driver.execute_query(
        "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) WHERE r.group_id = $g SET r.mark = null", g=group
    )
    in_parts = await dump(driver, group)
    await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
    await writer.ingest_many(SESSIONS)
    assert await dump(driver, group) == in_parts


async def test_a_session_moved_to_another_group_leaves_the_history_of_its_old_one(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS))[0].group_id
    await writer.ingest(SESSIONS[1], group_id="elsewhere")  # session 2 moves out

    assert await config_history(backend, group) == [("60", "2026-03-05"), ("900", None)]


async def test_queries_answer_what_holds_now_and_what_was_seen_before(backend: Backend) -> None:
    from graphiti_session_tracking.graph.queries import run_query

    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(SESSIONS))[0].group_id

    current = await run_query(backend, "config-changes", group_id=group, current=True)
    assert [(r["setting"], r["new_value"], r["session_id"][:2], r["until"]) for r in current] == [
        ("JWT_EXPIRY", "900", "s4", None)
    ]
    history = await run_query(backend, "config-changes", group_id=group, setting="jwt_expiry")
    assert [(r["new_value"], (r["until"] or "")[:10]) for r in history] == [
        ("60", "2026-03-03"),
        ("3600", "2026-03-05"),
        ("900", ""),
    ]
    again = await run_query(backend, "errors", group_id=group, seen_before=True)
    assert sorted(
        (r["session_id"][:2], r["times_seen"], r["first_seen"][:10], r["last_seen"][:10]) for r in again
    ) == [
        ("s1", 3, "2026-03-02", "2026-03-06"),
        ("s3", 3, "2026-03-02", "2026-03-06"),
        ("s5", 3, "2026-03-02", "2026-03-06"),
    ]
    assert {r["last_fix"] for r in again} == {"Edited tokens.py"}
    once = await run_query(backend, "errors", group_id=group, text="jwt")
    assert [(r["times_seen"], r["last_fix"]) for r in once] == [(1, "Ran `pip install pyjwt`")]


def deciding(n: int, decision: str, alternatives: list[str]) -> EnhancedSessionSummary:
    from graphiti_session_tracking.summary.model import DecisionRecord

    return session(n).model_copy(
        update={"key_decisions": [DecisionRecord(decision=decision, alternatives=alternatives)]}
    )


DECIDING = [
    deciding(1, "Cache sessions in Redis instead of Memcached", ["Memcached"]),
    deciding(2, "Store uploads in S3 rather than on local disk", ["local disk"]),
    deciding(3, "Go back to Memcached instead of Redis for the session cache", ["Redis"]),
    deciding(4, "Use Memcached for rate limits too instead of a new Redis", ["a new Redis"]),
]


async def test_a_decision_that_reverses_an_earlier_one_supersedes_it(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(DECIDING))[0].group_id
    links = await backend.read(
        group,
        "MATCH (a:Entity:Decision)-[r:RELATES_TO]->(b:Entity:Decision) WHERE r.name = 'SUPERSEDES' "
        "AND a.group_id = $group_id RETURN a.session_id AS later, b.session_id AS earlier",
        {"group_id": group},
    )
    # Session 4 also mentions Redis, but only session 3 turns down what session 1 chose and back.
    assert [(r["later"][:2], r["earlier"][:2]) for r in links] == [("s3", "s1")]
    held = await backend.read(
        group,
        "MATCH (s:Entity:Session)-[r:RELATES_TO]->(d:Entity:Decision) WHERE r.name = 'MADE_DECISION' "
        "AND d.group_id = $group_id RETURN s.session_id AS sid, r.invalid_at AS until ORDER BY sid",
        {"group_id": group},
    )
    assert [(r["sid"][:2], None if r["until"] is None else str(r["until"])[:10]) for r in held] == [
        ("s1", "2026-03-04"),
        ("s2", None),
        ("s3", None),
        ("s4", None),
    ]
    driver = await backend.driver_for(group)
    in_order = await dump(driver, group)
    await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
    for one in reversed(DECIDING):
        await writer.ingest(one)
    assert await dump(driver, group) == in_order
    await writer.ingest(deciding(3, "Keep the session cache as it is", []))  # session 3 re-summarized
    assert not await backend.read(
        group,
        "MATCH (a:Entity:Decision)-[r:RELATES_TO]->(:Entity:Decision) WHERE r.name = 'SUPERSEDES' "
        "AND a.group_id = $group_id RETURN r.uuid AS uuid",
        {"group_id": group},
    )


def test_the_same_choice_made_again_supersedes_nothing() -> None:
    """ "X instead of Y" said again names Y in both texts: the same choice, not a reversal."""
    from graphiti_session_tracking.graph.history import Occurrence, contradicts

    at = datetime(2026, 3, 1, tzinfo=UTC)
    first = Occurrence(
        at,
        "u1",
        "s1",
        "Used Result<T, E> instead of raising exceptions",
        alternatives=("raising exceptions",),
    )
    again = Occurrence(
        at,
        "u2",
        "s2",
        "Used Result<T, E> instead of raising exceptions",
        alternatives=("raising exceptions",),
    )
    back = Occurrence(
        at, "u3", "s3", "Raise exceptions instead of returning Result<T, E>", alternatives=("Result<T, E>",)
    )
    assert not contradicts(again, first)
    reversal = Occurrence(
        at,
        "u4",
        "s4",
        "Go back to raising exceptions instead of Result<T, E>",
        alternatives=("Result<T, E>",),
    )
    assert contradicts(reversal, first) and not contradicts(
        back, first
    )  # "raise" is not "raising exceptions"


def test_an_error_hit_twice_in_one_session_has_not_been_seen_before() -> None:
    """Two records of one signature in one session (a merge conflict in two commits of one
    rebase) link to nothing; a later session's links go to the first and the latest earlier one."""
    from graphiti_session_tracking.graph.history import seen_before_edges

    def row(uuid: str, session: str, day: int) -> dict[str, object]:
        at = datetime(2026, 3, day, tzinfo=UTC).isoformat()
        return {
            "signature": "conflict",
            "uuid": uuid,
            "session_id": session,
            "at": at,
            "text": "CONFLICT",
            "detail": "",
        }

    stored = [row("a1", "sa", 1), row("a2", "sa", 2), row("b1", "sb", 3), row("c1", "sc", 4)]
    edges = seen_before_edges("g", stored, [], set())
    links = sorted((e.source_node_uuid, e.target_node_uuid) for e in edges)
    assert ("a2", "a1") not in links  # the same session: not seen before
    assert links == [("b1", "a1"), ("b1", "a2"), ("c1", "a1"), ("c1", "b1")]  # first and latest elsewhere
