"""Which summary fields matter for a session, from its activity vector (spec section 5).

A debugging session needs errors and root causes; an exploration needs discoveries. Each field has
affinities to activity dimensions; its priority is the affinity-weighted activity, normalized.
"""

from __future__ import annotations

from graphiti_session_tracking.activity import ActivityVector

EXTRACTION_AFFINITIES: dict[str, dict[str, float]] = {
    "completed_tasks": {
        "building": 1.0,
        "fixing": 0.8,
        "configuring": 0.7,
        "refactoring": 0.9,
        "testing": 0.6,
    },
    "key_decisions": {
        "building": 1.0,
        "configuring": 0.9,
        "refactoring": 0.8,
        "fixing": 0.6,
        "exploring": 0.5,
    },
    "errors_resolved": {"fixing": 1.0, "configuring": 0.7, "testing": 0.5},
    "root_cause_analysis": {"fixing": 1.0, "exploring": 0.7, "reviewing": 0.6},
    "discoveries": {"exploring": 1.0, "reviewing": 0.8, "documenting": 0.5},
    "files_modified": {
        "building": 0.9,
        "fixing": 0.8,
        "configuring": 0.7,
        "refactoring": 0.9,
        "testing": 0.5,
    },
    "config_changes": {"configuring": 1.0, "fixing": 0.4},
    "test_results": {"testing": 1.0, "fixing": 0.7, "building": 0.6},
    "next_steps": {"building": 0.8, "fixing": 0.7, "configuring": 0.5, "exploring": 0.4},
    "mcp_tools_used": {"fixing": 0.6, "exploring": 0.7, "building": 0.3},
}

FIELD_INSTRUCTIONS: dict[str, str] = {
    "completed_tasks": "List specific tasks that were accomplished",
    "key_decisions": "Capture decisions made WITH rationale (why this choice?) and the alternatives considered",
    "errors_resolved": "For each error: what was it, root cause, how fixed, how verified",
    "root_cause_analysis": "If debugging, explain the root cause discovered",
    "config_changes": "List config file changes with setting, before/after values and the reason",
    "test_results": "Summarize test execution results and failures",
    "discoveries": "Key insights or learnings from exploration",
    "files_modified": "List of files created/modified",
    "next_steps": "What should happen next?",
    "mcp_tools_used": "Which MCP tools were utilized?",
}

DEFAULT_THRESHOLD = 0.3
# Fields the transcript states exactly (summary/files.py, test_runs.py, the tool classifier): they
# weigh a session's activity but are never asked of the model, whose answer has no place for them.
READ_FROM_TRANSCRIPT = frozenset({"files_modified", "test_results", "mcp_tools_used"})
ALWAYS_ASKED = ("key_decisions", "errors_resolved")


def compute_extraction_priority(field: str, activity: ActivityVector) -> float:
    """0..1: how much `field` matters for a session with this activity mix (0.5 for unknown fields)."""
    affinities = EXTRACTION_AFFINITIES.get(field)
    if not affinities:
        return 0.5
    weighted = sum(float(getattr(activity, dim)) * weight for dim, weight in affinities.items())
    return weighted / sum(affinities.values())


def get_extraction_fields(activity: ActivityVector, threshold: float = DEFAULT_THRESHOLD) -> list[str]:
    """Fields at or above `threshold`, most important first (ties in the table's order)."""
    scored = [(f, compute_extraction_priority(f, activity)) for f in EXTRACTION_AFFINITIES]
    return [f for f, p in sorted(scored, key=lambda item: -item[1]) if p >= threshold]


def dynamic_extraction_instructions(activity: ActivityVector, threshold: float = DEFAULT_THRESHOLD) -> str:
    """The numbered instructions for the fields this session needs (the prompt's core).

    A session with no dominant activity gets the spec's always-useful fields rather than an
    empty list, so that the model is never asked for nothing.
    """
    fields = [f for f in get_extraction_fields(activity, threshold) if f not in READ_FROM_TRANSCRIPT]
    fields = fields or ["completed_tasks", "next_steps"]
    # Decisions and errors are what people ask the graph for: asked of every session.
    fields += [f for f in ALWAYS_ASKED if f not in fields]
    lines = [
        "Always: objective (1-2 sentences) and outcome (completed, blocked, in_progress or abandoned).",
        "Files, test results and MCP tools are read from the transcript itself: do not list them.",
    ]
    for number, field in enumerate(fields, 1):
        priority = compute_extraction_priority(field, activity)
        lines.append(f"{number}. **{field}** (priority: {priority:.2f}): {FIELD_INSTRUCTIONS[field]}")
    return "\n".join(lines)
