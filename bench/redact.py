"""Redaction cost per MB of transcript text (secrets mixed into realistic output), in one run.

.venv/bin/python bench/redact.py [--mb 5]
"""

from __future__ import annotations

import argparse
import time

from graphiti_session_tracking.redact import Redactor

CHUNK = (
    "$ export OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i && pytest -q\n"
    "tests/test_auth.py::test_login PASSED\nDATABASE_URL=postgres://app:hunter2@db:5432/app\n"
    "def handler(request):\n    return Response(status=200, body=json.dumps({'ok': True}))\n"
    * 3
    + "JWT_EXPIRY=3600\nDEBUG=true\n" * 4
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0)
    args = parser.parse_args()
    text = CHUNK * int(args.mb * 1_000_000 / len(CHUNK))
    redactor = Redactor()
    for context in (None, ".env"):
        started = time.perf_counter()
        out = redactor.redact(text, context)
        seconds = time.perf_counter() - started
        mb = len(text) / 1e6
        print(f"context={context!s:5} {mb:.1f} MB in {seconds:.2f}s = {seconds / mb * 1000:.0f} ms per MB")
        assert "hunter2" not in out and "sk-proj-" not in out


if __name__ == "__main__":
    main()
