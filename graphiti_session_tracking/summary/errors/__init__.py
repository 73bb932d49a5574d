"""Errors the session's work ran into and got past, read from the tool calls alone (no LLM).

An error is a failing command of the work: a test run, a build, a lint, a script, a git push, an
install. The agent's own hiccups are not: a tool the harness refused (an Edit whose text was not
found, a file not read yet), a call the user rejected, a `cd` into a missing folder, a `grep`
that found nothing, a warning. Each distinct failing line of the output (a compiler diagnostic,
an exception, a failed test) is its own record, so one code can be found by searching for it.
A command can fail while exiting 0: a script that reports errors in words and goes on (gone only
when the same command, rerun after a change, no longer prints them), or one left waiting at an
interactive prompt (gone when the program runs to its end).

A failing line counts as resolved when a later call *of the same kind* succeeds (same program and
subcommand, `pytest tests/x.py` then `pytest -q`), or when the very same command is run again
after a change and no longer reports it; a run that still prints the message proves nothing.
What was changed in between is the fix, the call that proved it the verification. The root cause
is the assistant's own explicit explanation ("the import fails because…"), never a hedged guess
nor a mere place ("the issue is on line 42"): an empty root cause beats a wrong one. Errors the
user pasted into a request (compiler diagnostics, exceptions) count when the session then
changed files and a check (test, build, lint) passed. Sub-agents' calls are read like the main
thread's: a failure is matched with later calls of its own thread, while an edit a sub-agent made
in between counts as part of the fix.

One module per phase: `lines` (which lines of a call's output say what failed), `walk` (the walk
that opens failures and resolves them), `record` (root cause, fix and verification), on
`commands` (what a call is: its command, its kind, whether it is a check); `signature` says what
makes two errors one across sessions.
"""

from .signature import error_signature
from .verdict import failed_in_form_only, failure_lines, forget_judged
from .walk import extract_errors_resolved

__all__ = [
    "error_signature",
    "extract_errors_resolved",
    "failed_in_form_only",
    "failure_lines",
    "forget_judged",
]
