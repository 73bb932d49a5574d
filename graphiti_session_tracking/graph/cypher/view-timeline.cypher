// The web view's timeline: one page of a project's sessions, newest first.
// Parameters: $group_id (the project; required), $skip (rows before this page), $limit (its size).
MATCH (s:Entity:Session)
WHERE s.group_id = $group_id
RETURN s.session_id AS session_id, s.objective AS objective, s.outcome AS outcome,
       s.primary_activity AS primary_activity, s.started_at AS started_at, s.ended_at AS ended_at,
       s.duration_minutes AS duration_minutes, coalesce(s.agent, 'claude-code') AS agent,
       s.message_count AS message_count
ORDER BY started_at DESC, session_id
SKIP $skip
LIMIT $limit
