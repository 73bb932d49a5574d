"""Recap scores on constructed sessions where the right order is known, and the collapse rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphiti_session_tracking.graph.local_embedder import LocalEmbedder
from graphiti_session_tracking.recap.scoring import category, choose, chunks_of, estimate_tokens, score_chunks
from graphiti_session_tracking.transcripts import ToolCall, read_transcript

CWD = "/work/app"


def _session(tmp_path: Path, turns: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]]) -> Path:
    """A transcript of (user text, assistant text, tool calls) turns."""
    lines = []
    for n, (user, answer, calls) in enumerate(turns, 1):
        lines.append(
            {
                "type": "user",
                "uuid": f"u{n}",
                "sessionId": "s",
                "cwd": CWD,
                "timestamp": f"2026-01-01T10:{n:02d}:00Z",
                "message": {"role": "user", "content": user},
            }
        )
        content: list[dict[str, Any]] = [{"type": "text", "text": answer}]
        content += [
            {"type": "tool_use", "id": f"t{n}{i}", "name": name, "input": args}
            for i, (name, args) in enumerate(calls)
        ]
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "sessionId": "s",
                "cwd": CWD,
                "timestamp": f"2026-01-01T10:{n:02d}:30Z",
                "message": {"role": "assistant", "content": content},
            }
        )
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_tool_calls_are_consequential_observational_or_meta() -> None:
    def call(name: str, **args: Any) -> ToolCall:
        return ToolCall(id="x", name=name, input=args, timestamp=None, line=1)

    assert category(call("Edit", file_path="/a.py", old_string="a", new_string="b")) == "consequential"
    assert category(call("Write", file_path="/a.py", content="x")) == "consequential"
    assert category(call("Bash", command="git commit -m x")) == "consequential"
    assert category(call("AskUserQuestion", questions=[])) == "consequential"
    assert category(call("Read", file_path="/a.py")) == "observational"
    assert category(call("Grep", pattern="x")) == "observational"
    assert category(call("Bash", command="ls -la")) == "observational"
    assert category(call("TodoWrite", todos=[])) == "meta"


def test_meta_calls_are_dropped_and_file_contents_never_kept(tmp_path: Path) -> None:
    secret_body = "def body_of_the_file():\n    return 42\n" * 5
    path = _session(
        tmp_path,
        [
            (
                "Add the helper",
                "Writing it.",
                [
                    ("Write", {"file_path": f"{CWD}/h.py", "content": secret_body}),
                    ("TodoWrite", {"todos": [{"content": "x", "status": "done"}]}),
                ],
            )
        ],
    )
    (chunk,) = chunks_of(read_transcript(path))
    assert chunk.lines == [
        "User: Add the helper",
        "Assistant: Writing it.",
        "- Wrote h.py (11 lines) (no result)",
    ]
    assert "body_of_the_file" not in chunk.text
    assert chunk.consequential == 1


def test_recency_and_action_order_equal_chunks(tmp_path: Path) -> None:
    """Same words everywhere: the later chunk, and the one that changed something, rank higher."""
    turn = (
        "Look at the parser module",
        "Looking at the parser module now.",
        [("Read", {"file_path": f"{CWD}/p.py"})],
    )
    edit = (
        "Look at the parser module",
        "Looking at the parser module now.",
        [("Edit", {"file_path": f"{CWD}/p.py", "old_string": "a", "new_string": "b"})],
    )
    scored = score_chunks(chunks_of(read_transcript(_session(tmp_path, [turn, turn, turn]))), [])
    assert [s.score for s in scored] == sorted(s.score for s in scored)  # rising with recency
    scored = score_chunks(chunks_of(read_transcript(_session(tmp_path, [edit, turn]))), [])
    assert scored[0].action == 1.25 and scored[1].action == 1.0
    assert scored[0].score > scored[1].score / 1.0 * 0.5


def test_novelty_sinks_what_the_graph_already_holds_and_centrality_sinks_noise(tmp_path: Path) -> None:
    turns = [
        ("Switch the cache to Redis", "Redis cache: replacing the in-memory cache with Redis.", []),
        ("Check the Redis cache settings", "The Redis cache needs a TTL setting for the cache keys.", []),
        ("What is the weather", "Sunny skies and mild wind.", []),
        ("Add the Redis cache TTL", "Setting the Redis cache TTL for cache keys to 60 seconds.", []),
    ]
    chunks = chunks_of(read_transcript(_session(tmp_path, turns)))
    plain = score_chunks(chunks, [])
    assert min(plain, key=lambda s: s.centrality).chunk.index == 2  # the off-topic chunk stands alone
    known = score_chunks(chunks, ["Redis cache TTL for cache keys set to 60 seconds"])
    assert known[3].novelty < plain[3].novelty and known[3].novelty < known[2].novelty


def test_novelty_by_embedding_sinks_what_the_graph_holds_in_other_words(tmp_path: Path) -> None:
    """A memory that shares no word with the chunk ("rejected" / "refused") is still near it by
    meaning: the local embedder sinks its novelty where word overlap cannot; an unrelated chunk
    stays new, and a chunk the embedder cannot place falls back to word overlap."""
    turns = [
        (
            "why does the upload keep getting refused?",
            "The server turned the upload away: that branch is protected.",
            [],
        ),
        (
            "add a dark theme toggle",
            "I added a toggle component that stores the preference in localStorage.",
            [],
        ),
    ]
    chunks = chunks_of(read_transcript(_session(tmp_path, turns)))
    known = ["git push rejected: protected branch hook declined main"]
    local = LocalEmbedder.load()
    lexical = score_chunks(chunks, known)
    meaning = score_chunks(chunks, known, local.embed)
    assert meaning[0].novelty < lexical[0].novelty - 0.2
    assert meaning[1].novelty > meaning[0].novelty + 0.3
    unplaced = score_chunks(chunks, known, lambda texts: [None] * len(texts))
    assert [s.novelty for s in unplaced] == [s.novelty for s in lexical]
    assert [s.novelty for s in score_chunks(chunks, [], local.embed)] == [1.0, 1.0]


def test_choose_fits_the_budget_and_keeps_session_order(tmp_path: Path) -> None:
    turns = [(f"Step {i} of the migration", f"Doing step {i}: " + "details " * 40, []) for i in range(8)]
    scored = score_chunks(chunks_of(read_transcript(_session(tmp_path, turns))), [])
    chosen, left = choose(scored, 200)
    assert sum(estimate_tokens(s.chunk.text) + 1 for s in chosen) <= 200
    assert left == len(scored) - len(chosen) > 0
    assert [s.chunk.index for s in chosen] == sorted(s.chunk.index for s in chosen)
    assert chosen[-1].chunk.index == len(scored) - 1  # the end of the session is where work continues


def test_the_end_of_the_session_comes_first_whatever_its_score_and_is_cut_from_its_start(
    tmp_path: Path,
) -> None:
    """How the session stopped is what the next one needs most: kept even when the graph already
    holds all of it (lowest novelty), and when it does not fit whole, its last lines are kept."""
    turns = [(f"Step {i} of the migration", f"Doing step {i}: " + f"novel{i} " * 40, []) for i in range(5)]
    commands = [("Bash", {"command": f"curl -sf https://api.example.com/health/{n}"}) for n in range(25)]
    turns.append(("Deploy it and check the API", "Deploying now.", commands))
    chunks = chunks_of(read_transcript(_session(tmp_path, turns)))
    scored = score_chunks(chunks, [chunks[-1].text])
    assert min(scored, key=lambda s: s.score).chunk.index == len(chunks) - 1
    chosen, _ = choose(scored, 700)
    assert chosen[-1].chunk == chunks[-1]
    budget = estimate_tokens(chunks[-1].text) // 2
    chosen, left = choose(scored, budget)
    end = chosen[-1].chunk
    assert sum(estimate_tokens(s.chunk.text) + 1 for s in chosen) <= budget and left == len(chunks) - len(
        chosen
    )
    assert end.lines[-1] == chunks[-1].lines[-1] and end.lines[0].startswith("(… ")
    assert end.lines[0].split()[1] == str(len(chunks[-1].lines) - len(end.lines) + 1)
