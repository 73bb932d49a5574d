// The web view's session page: one session node with its 8-dimension activity vector.
// Parameters: $group_id (the project; required), $session (a session id or a prefix of it).
// Two rows at most: a prefix that names two sessions is ambiguous.
MATCH (s:Entity:Session)
WHERE s.group_id = $group_id AND s.session_id STARTS WITH $session
RETURN s.session_id AS session_id, s.objective AS objective, s.outcome AS outcome,
       s.primary_activity AS primary_activity, s.started_at AS started_at, s.ended_at AS ended_at,
       s.duration_minutes AS duration_minutes, s.message_count AS message_count,
       coalesce(s.agent, 'claude-code') AS agent, s.agent_version AS agent_version,
       s.git_branch AS git_branch, s.project_path AS project_path, s.group_id AS group_id,
       s.activity_building AS building, s.activity_fixing AS fixing,
       s.activity_configuring AS configuring, s.activity_exploring AS exploring,
       s.activity_refactoring AS refactoring, s.activity_reviewing AS reviewing,
       s.activity_testing AS testing, s.activity_documenting AS documenting
ORDER BY session_id
LIMIT 2
