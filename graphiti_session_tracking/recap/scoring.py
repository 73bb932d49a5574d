"""The recap's choice of what to say about a session: its narrative collapsed into one line per
message or tool call, cut into chunks, and each chunk scored (IDEA_session_recap)

    score = novelty × centrality × recency × action weight

- novelty: 1 − the chunk's greatest cosine similarity to what the graph already holds for the
  project (its latest 100 decisions and errors, the settings in force, the session's next steps):
  what is recorded there is said anyway, or known. By embedding distance (the local embedder, so
  "the push was refused" is near a recorded "git push rejected") when one is given, else TF-IDF;
- centrality: TextRank (PageRank over the chunks' similarity graph): a chunk many others echo is
  what the session was about; noise stands alone;
- recency: 0.5 at the first chunk rising to 1.0 at the last: where the session stopped is what the
  next one continues;
- action weight: 1 + 0.25 × the chunk's consequential tool calls (writes, edits, state-changing
  commands, questions to the user), at most 2.

The recap is built after an ingest, never in the SessionStart hook (which prints the kept one), so
the local embedder's 0.1 s load is paid off the hook's clock. Tokens are estimated as
characters / 4 (OpenAI's rule of thumb for English and code; a real tokenizer would need its
vocabulary downloaded, which a hook cannot wait for).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from graphiti_session_tracking.summary.content import collapse_tool_call
from graphiti_session_tracking.tools.bash.analyzer import BashAnalyzer
from graphiti_session_tracking.tools.heuristics import classify_heuristic
from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

Category = Literal["consequential", "observational", "meta"]
# Texts to unit vectors (None for a text with nothing to place): the local embedder's `embed`.
Embed = Callable[[Sequence[str]], list[list[float] | None]]

CHUNK_CHARS = 1_200  # a chunk: one exchange, or this much of a long one
TEXT_CHARS = 400  # of one message in a recap line
ALPHA = 0.25
META_KINDS = frozenset({ToolKind.TODO, ToolKind.BACKGROUND})
ASKING_KINDS = frozenset({ToolKind.QUESTION, ToolKind.PLAN})
_CHANGES = frozenset({ToolIntent.CREATE, ToolIntent.MODIFY, ToolIntent.DELETE, ToolIntent.CONFIGURE})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{2,}")
_BASH = BashAnalyzer()


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def category(call: ToolCall) -> Category:
    """Consequential (changed state or asked the user), observational (looked), meta (bookkeeping)."""
    if call.kind in META_KINDS:
        return "meta"
    if call.kind in ASKING_KINDS:
        return "consequential"
    if call.kind is ToolKind.COMMAND:
        intent = _BASH.analyze(str(call.input.get("command", ""))).classification.intent
    else:
        classified = classify_heuristic(call.name, call.input)
        intent = classified.intent if classified is not None else ToolIntent.EXECUTE
    return "consequential" if intent in _CHANGES else "observational"


@dataclass
class Chunk:
    index: int
    lines: list[str] = field(default_factory=list)
    consequential: int = 0
    first_message: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Scored:
    chunk: Chunk
    novelty: float
    centrality: float
    recency: float
    action: float

    @property
    def score(self) -> float:
        return self.novelty * self.centrality * self.recency * self.action


def chunks_of(session: Session) -> list[Chunk]:
    """The session as chunks of collapsed lines: a human message opens a new one; reasoning stays
    whole, tool calls are one line each (meta ones dropped), tool results and file contents never."""
    chunks: list[Chunk] = []
    current = Chunk(0)
    size = 0

    def close() -> None:
        nonlocal current, size
        if current.lines:
            chunks.append(current)
        current, size = Chunk(len(chunks)), 0

    cwd = session.project_root
    for number, message in enumerate(session.messages):
        lines: list[tuple[str, bool]] = []
        who = "sub-agent" if message.is_sidechain else None
        if message.role == "user":
            if not message.is_human:
                continue
            close()
            lines.append((f"User: {_cut(message.text)}", False))
        else:
            if message.text.strip():
                lines.append((f"{who or 'Assistant'}: {_cut(message.text)}", False))
            for call in message.tool_calls:
                kind = category(call)
                if kind != "meta":
                    lines.append((f"- {collapse_tool_call(call, cwd)}", kind == "consequential"))
        for line, consequential in lines:
            if size and size + len(line) > CHUNK_CHARS:
                close()
            if not current.lines:
                current.first_message = number
            current.lines.append(line)
            current.consequential += consequential
            size += len(line)
    close()
    return chunks


def score_chunks(chunks: Sequence[Chunk], known: Sequence[str], embed: Embed | None = None) -> list[Scored]:
    """Each chunk with its four factors (in session order); novelty by embedding distance when
    `embed` is given (a chunk it cannot place falls back to TF-IDF)."""
    if not chunks:
        return []
    known = [text for text in known if text.strip()]
    documents = [_terms(c.text) for c in chunks]
    known_terms = [_terms(text) for text in known]
    idf = _idf([*documents, *known_terms])
    vectors = [_vector(d, idf) for d in documents]
    known_vectors = [_vector(k, idf) for k in known_terms]
    nearest = _nearest_embedded(chunks, known, embed) if embed is not None else [None] * len(chunks)
    centrality = _textrank(vectors)
    top = max(centrality) or 1.0
    last = max(len(chunks) - 1, 1)
    out = []
    for i, chunk in enumerate(chunks):
        similar = nearest[i]
        if similar is None:
            similar = max((_cosine(vectors[i], k) for k in known_vectors), default=0.0)
        out.append(
            Scored(
                chunk,
                novelty=max(0.05, 1.0 - similar),
                centrality=max(0.05, centrality[i] / top),
                recency=0.5 + 0.5 * i / last,
                action=min(2.0, 1.0 + ALPHA * chunk.consequential),
            )
        )
    return out


def _nearest_embedded(chunks: Sequence[Chunk], known: Sequence[str], embed: Embed) -> list[float | None]:
    """Each chunk's cosine similarity to its nearest known text by embedding (0 when nothing is
    known), or None for a chunk the embedder cannot place."""
    chunk_vectors = embed([c.text for c in chunks])
    known_vectors = [v for v in embed(list(known)) if v is not None] if known else []
    if not known_vectors:
        return [0.0 if v is not None else None for v in chunk_vectors]
    memory = np.asarray(known_vectors, dtype=np.float32)
    memory /= np.maximum(np.linalg.norm(memory, axis=1, keepdims=True), 1e-12)
    out: list[float | None] = []
    for vector in chunk_vectors:
        if vector is None:
            out.append(None)
            continue
        v = np.asarray(vector, dtype=np.float32)
        out.append(max(0.0, float(np.max(memory @ (v / max(float(np.linalg.norm(v)), 1e-12))))))
    return out


def choose(scored: Sequence[Scored], budget_tokens: int) -> tuple[list[Scored], int]:
    """The end of the session first (how it stopped is what the next session needs most: its
    last lines when the whole last chunk does not fit), then the best other chunks that fit the
    budget, back in session order; and how many chunks were left out."""
    if not scored:
        return [], 0
    *rest, last = sorted(scored, key=lambda s: s.chunk.index)
    end = _tail(last, budget_tokens)
    chosen = [end] if end is not None else []
    used = sum(estimate_tokens(item.chunk.text) + 1 for item in chosen)
    for item in sorted(rest, key=lambda s: -s.score):
        cost = estimate_tokens(item.chunk.text) + 1
        if used + cost <= budget_tokens:
            chosen.append(item)
            used += cost
    chosen.sort(key=lambda s: s.chunk.index)
    return chosen, len(scored) - len(chosen)


def _tail(item: Scored, budget_tokens: int) -> Scored | None:
    """`item`, or its last lines that fit `budget_tokens` (a line saying what was cut before them)."""
    if estimate_tokens(item.chunk.text) + 1 <= budget_tokens:
        return item
    kept: list[str] = []
    for line in reversed(item.chunk.lines):
        if estimate_tokens("\n".join([line, *kept])) + 20 > budget_tokens:
            break
        kept.insert(0, line)
    if not kept:
        return None
    cut = len(item.chunk.lines) - len(kept)
    chunk = replace(item.chunk, lines=[f"(… {cut} earlier lines of this part left out)", *kept])
    return replace(item, chunk=chunk)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def _terms(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text))


def _idf(documents: Sequence[Counter[str]]) -> dict[str, float]:
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document.keys())
    n = len(documents)
    return {term: math.log((1 + n) / (1 + count)) + 1 for term, count in frequency.items()}


def _vector(terms: Counter[str], idf: dict[str, float]) -> dict[str, float]:
    vector = {t: (1 + math.log(c)) * idf.get(t, 1.0) for t, c in terms.items()}
    norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    return {t: v / norm for t, v in vector.items()}


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def _textrank(vectors: Sequence[dict[str, float]], damping: float = 0.85, rounds: int = 30) -> list[float]:
    n = len(vectors)
    if n == 1:
        return [1.0]
    weights = [[_cosine(vectors[i], vectors[j]) if i != j else 0.0 for j in range(n)] for i in range(n)]
    out_sums = [sum(row) or 1.0 for row in weights]
    rank = [1.0 / n] * n
    for _ in range(rounds):
        rank = [
            (1 - damping) / n + damping * sum(weights[j][i] / out_sums[j] * rank[j] for j in range(n))
            for i in range(n)
        ]
    return rank
