"""How much of what a careful reader records reaches the model: for each labelled error and decision,
whether every one of its `match` phrases is in the summary requests the tool would send under the
product's default budget (2 requests, 12,000 input tokens a session, tool classification
included). No answer is needed, so this measures the request alone, on both splits, counts only.

A label whose phrases never reach the request cannot be recorded by any model; one that does is
the model's to find. `narrative` is the same with no budget (the whole collapsed session).

    .venv/bin/python bench/llm_evidence.py [--split test|dev|both] [--tokens 12000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from fidelity import DEFAULT_CORPUS, _all_phrases, load_split
from llm_replay import LLMPath

from graphiti_session_tracking.summary import EnhancedSessionSummarizer
from graphiti_session_tracking.summary.content import KEEP_ALL, render, session_content
from graphiti_session_tracking.summary.model import EnhancedSessionSummary
from graphiti_session_tracking.transcripts import Session, read_transcript


class _Planner(EnhancedSessionSummarizer):
    """The summarizer up to the requests it would send; it sends none."""

    sent = ""
    requests = 0

    async def summarize(self, session: Session, offline: EnhancedSessionSummary) -> EnhancedSessionSummary:
        condensed, _, _ = await self.condense(session)
        parts, _ = self.plan(session, offline, condensed)
        self.requests = len(parts)
        self.sent = "\n".join(
            self.render(session, offline, p, "", i, len(parts)) for i, p in enumerate(parts, 1)
        )
        return offline


async def _sent(transcript: Path, path: LLMPath) -> tuple[str, int]:
    """The summary requests planned for one transcript (tool classification answered from the
    store, as the product would ask it)."""
    await path(transcript)
    planner = path.summarizer
    assert isinstance(planner, _Planner)
    return planner.sent, planner.requests


async def measure(split: str, tokens: int) -> None:
    counts: dict[str, list[int]] = {"errors": [0, 0, 0], "decisions": [0, 0, 0]}
    requests = sessions = 0
    path = LLMPath(DEFAULT_CORPUS / split / "llm", tokens, _Planner)
    for transcript, label in load_split(DEFAULT_CORPUS, split):
        sent, made = await _sent(transcript, path)
        narrative = render(session_content(read_transcript(transcript), KEEP_ALL))
        requests += made
        sessions += 1
        for record in counts:
            labels: list[dict[str, Any]] = [lab for lab in label.get(record, []) if not lab.get("trivial")]
            counts[record][0] += len(labels)
            counts[record][1] += sum(_all_phrases(narrative, lab) for lab in labels)
            counts[record][2] += sum(_all_phrases(sent, lab) for lab in labels)
    print(f"{split} ({sessions} sessions, {requests} summary requests, budget {tokens} tokens):")
    for record, (total, narrative_n, sent_n) in counts.items():
        print(
            f"  {record:9}  {total:4} labels; in the narrative {narrative_n / max(1, total):.2f}, "
            f"in the requests {sent_n / max(1, total):.2f} ({narrative_n - sent_n} cut by the budget)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("test", "dev", "both"), default="both")
    parser.add_argument("--tokens", type=int, default=12_000)
    args = parser.parse_args()
    for split in ("test", "dev") if args.split == "both" else (args.split,):
        asyncio.run(measure(split, args.tokens))


if __name__ == "__main__":
    main()
