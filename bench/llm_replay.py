"""The LLM path on the labelled corpus, with a strong model's recorded answers to the tool's exact
requests (tests/support/replay_openai.py).

    .venv/bin/python bench/llm_replay.py record [--split test]   # write the requests still unanswered
    .venv/bin/python bench/fidelity.py --llm                     # score the LLM path with the answers

`record` runs the LLM path (the product's defaults: a budget of 2 requests and 12,000 input
tokens a session, tool classification included) over every transcript of the split
against the replay server; each request without a recorded answer is appended to
`bench/corpus/<split>/llm/requests.jsonl`. A reader (a capable model or person) answers each
request from the request alone, never from the transcript, into `answers.jsonl` (`key`,
`answer`). Run `record` again until nothing is missing: a session's second request carries what
its first answer found, so it exists only once the first is answered.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from replay_openai import ReplayOpenAI

from graphiti_session_tracking.config import LLMBudgetSection, LLMConfig
from graphiti_session_tracking.llm import LLMMeter, make_llm_client
from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.summary import EnhancedSessionSummarizer, summarize_session
from graphiti_session_tracking.tools import UnifiedToolClassifier
from graphiti_session_tracking.transcripts import read_transcript

CORPUS = Path(__file__).resolve().parent / "corpus"


class LLMPath:
    """Summarizes transcripts through the LLM path against a replay store; counts what it sent."""

    def __init__(
        self,
        store: Path,
        tokens: int | None = None,
        summarizer: type[EnhancedSessionSummarizer] = EnhancedSessionSummarizer,
    ) -> None:
        self.store = store
        self.tokens = tokens  # the session's input token budget; None: the product's default
        self.summarizer_type = summarizer
        self.summarizer: EnhancedSessionSummarizer | None = None  # the last session's
        self.missing = 0
        self.answered = 0
        self.calls = 0
        self.input_tokens = 0

    async def __call__(self, transcript: Path) -> Any:
        with ReplayOpenAI(self.store, transcript.name) as server:
            budget = LLMBudgetSection()
            meter = LLMMeter(budget.session_calls, self.tokens or budget.session_input_tokens)
            settings = LLMConfig(enabled=True, base_url=server.base_url, model="m", max_retries=0)
            client = make_llm_client(settings, Redactor(), meter)
            assert client is not None
            summarizer = self.summarizer = self.summarizer_type(client, meter=meter)
            classifier = UnifiedToolClassifier(client, persist=False)
            summary = await summarize_session(read_transcript(transcript), classifier, summarizer)
            self.missing += len(set(server.missing))
            self.answered += server.answered
        self.calls += summary.llm_calls
        self.input_tokens += summary.llm_input_tokens
        return summary


async def record(split: str) -> None:
    path = LLMPath(CORPUS / split / "llm")
    folder = CORPUS / split / "transcripts"
    transcripts = sorted(
        p for p in folder.iterdir() if p.suffix in (".jsonl", ".json")
    )  # Gemini chats: .json
    for transcript in transcripts:
        await path(transcript)
    print(
        f"{split}: {len(transcripts)} sessions, {path.calls} requests sent ({path.input_tokens} input tokens), "
        f"{path.answered} answered from the store, {path.missing} without an answer "
        f"(written to {path.store / 'requests.jsonl'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="Write the requests that have no recorded answer yet.")
    rec.add_argument("--split", default="test", choices=["test", "dev"])
    args = parser.parse_args()
    asyncio.run(record(args.split))


if __name__ == "__main__":
    main()
