"""The composition root starts lean: `search`, the recap and the MCP server build a pipeline for
its embedder and backend, and must not pay for reading, the ledger or the writer (0.1 s)."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import sys
from graphiti_session_tracking.config import AppConfig
from graphiti_session_tracking.pipeline.compose import build_pipeline

pipeline = build_pipeline(AppConfig())
pipeline.store_in_graph
loaded = [m for m in ("prepare", "ledger", "write", "parallel", "policy", "sources")
          if f"graphiti_session_tracking.pipeline.{m}" in sys.modules]
print(",".join(loaded) or "none")
pipeline.policy
print("policy" if "graphiti_session_tracking.pipeline.policy" in sys.modules else "no policy")
"""


def test_a_pipeline_built_for_a_question_loads_no_part_of_a_run() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["none", "policy"]  # and a part a run needs loads when asked
