"""Which channel each offline decision row came from, and how often each channel's rows are true,
per split and agent: counts only, so the test split can be diagnosed without anyone reading its
transcripts or labels. A channel worth keeping is judged on dev; test only confirms.

    .venv/bin/python bench/decision_kinds.py [--split test|dev]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fidelity import DEFAULT_CORPUS, _all_phrases, decision_row, load_split, pairs

from graphiti_session_tracking.summary.decisions import extract as extract_module
from graphiti_session_tracking.summary.decisions.record import _Found
from graphiti_session_tracking.transcripts.model import Session
from graphiti_session_tracking.transcripts.reader import read_transcript

_CHANNELS = (
    "_asked",
    "_bypassed",
    "_plans",
    "_rejections",
    "_picked_or_accepted",
    "_settled",
    "_marked",
    "_listed",
    "_merged",
)


def _tagging(name: str, source: dict[int, str]) -> Callable[..., Iterator[_Found]]:
    original = getattr(extract_module, name)

    def tagged(*args: Any, **kwargs: Any) -> Iterator[_Found]:
        for item in original(*args, **kwargs):
            source[id(item.record)] = name.strip("_")
            yield item

    return tagged


def diagnose(split: str, corpus: Path) -> None:
    source: dict[int, str] = {}
    originals = {name: getattr(extract_module, name) for name in (*_CHANNELS, "_phrased")}
    for name in originals:
        setattr(extract_module, name, _tagging(name, source))
    true: Counter[str] = Counter()
    rows: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    try:
        for transcript, label in load_split(corpus, split):
            session = read_transcript(transcript)
            labels = list(label.get("decisions", []))
            records = list(extract_module.extract_decisions(session))
            texts = [decision_row(record) for record in records]
            paired = pairs(texts, labels, _all_phrases)
            taken = set(paired.values())
            for index, record in enumerate(records):
                channel = f"{session.agent}: {source.get(id(record), '?')}"
                rows[channel] += 1
                true[channel] += index in paired
            for i, lab in enumerate(labels):
                if i not in taken:
                    missed[f"{session.agent}, by {lab.get('by', '?')}: {_sits(session, lab)}"] += 1
    finally:
        for name, original in originals.items():
            setattr(extract_module, name, original)
    print(f"\n{split}: decision rows by channel (true / rows)")
    for channel, n in rows.most_common():
        print(f"  {true[channel]:4} / {n:<4} {channel}")
    print(f"{split}: missed labels, by who decided and where their phrases sit")
    for where, n in missed.most_common():
        print(f"  {n:4}  {where}")


def _sits(session: Session, label: dict[str, Any]) -> str:
    """The first channel of the session whose text holds all of the label's phrases."""
    for message in session.messages:
        if message.role == "user" and _all_phrases(message.text, label):
            return "the user's words"
        if message.role != "user" and _all_phrases(message.text, label):
            return "the assistant's words"
        if _all_phrases(message.thinking, label):
            return "the assistant's thinking"
        for call in message.tool_calls:
            if _all_phrases(json.dumps(call.input, ensure_ascii=False), label):
                return f"a tool's input ({call.kind})"
            if call.result is not None and _all_phrases(call.result.text, label):
                return f"a tool's result ({call.kind})"
    return "nowhere verbatim"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("test", "dev"), default=None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    for split in (args.split,) if args.split else ("test", "dev"):
        diagnose(split, args.corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
