"""Share of tool calls classified without an LLM call, on the real fixture transcripts.

.venv/bin/python bench/classify.py [TRANSCRIPT_OR_FOLDER ...]
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path

from graphiti_session_tracking.tools import UnifiedToolClassifier
from graphiti_session_tracking.transcripts import read_transcript

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "claude-code"


async def main(paths: list[Path]) -> None:
    files = [f for p in paths for f in (sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])]
    classifier = UnifiedToolClassifier(None, persist=False)  # no LLM: what would have needed one shows
    sources: Counter[str] = Counter()
    low = 0
    for path in files:
        results = await classifier.classify_session(read_transcript(path).tool_calls)
        sources.update(r.source for r in results)
        low += sum(1 for r in results if r.confidence < 0.5)
    total = sum(sources.values())
    placed = total - classifier.stats.fallbacks
    print(f"transcripts: {len(files)}, tool calls: {total}, by source: {dict(sources)}")
    print(f"placed without an LLM: {placed}/{total} = {100 * placed / max(total, 1):.1f}% (goal >= 95%)")
    print(f"confidence below 0.5: {low}")


if __name__ == "__main__":
    asyncio.run(main([Path(a) for a in sys.argv[1:]] or [FIXTURES]))
