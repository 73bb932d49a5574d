// Which sessions were mostly about one kind of work (or about a topic), strongest first?
// Parameters: $group_id (null: every group), $activity (one of building, fixing, configuring,
// exploring, refactoring, reviewing, testing, documenting: sessions whose activity_<name> is at
// least $threshold, ordered by it), $threshold (0.3, the dominance threshold), $text
// (case-insensitive substring of the objective), $since_text / $until_text (ISO 8601 UTC text,
// compared with the session's ended_at, or started_at when it has no end), $agent (the coding
// agent: claude-code, codex, gemini-cli, opencode; sessions stored before agents were recorded
// are Claude Code's), $limit.
// Every parameter but $threshold and $limit may be null (no filter). Newest first without $activity.
MATCH (s:Session)
WHERE ($group_id IS NULL OR s.group_id = $group_id)
  AND ($agent IS NULL OR coalesce(s.agent, 'claude-code') = $agent)
  AND ($text IS NULL OR toLower(coalesce(s.objective, '')) CONTAINS toLower($text))
  AND ($since_text IS NULL OR coalesce(s.ended_at, s.started_at) >= $since_text)
  AND ($until_text IS NULL OR coalesce(s.ended_at, s.started_at) <= $until_text)
WITH s,
     CASE $activity
       WHEN 'building' THEN s.activity_building
       WHEN 'fixing' THEN s.activity_fixing
       WHEN 'configuring' THEN s.activity_configuring
       WHEN 'exploring' THEN s.activity_exploring
       WHEN 'refactoring' THEN s.activity_refactoring
       WHEN 'reviewing' THEN s.activity_reviewing
       WHEN 'testing' THEN s.activity_testing
       WHEN 'documenting' THEN s.activity_documenting
       ELSE null
     END AS activity_score
WHERE $activity IS NULL OR activity_score >= $threshold
RETURN s.session_id AS session_id, s.objective AS objective, s.outcome AS outcome,
       s.primary_activity AS primary_activity, activity_score, s.started_at AS started_at,
       s.ended_at AS ended_at, s.message_count AS message_count,
       s.duration_minutes AS duration_minutes, coalesce(s.agent, 'claude-code') AS agent,
       s.agent_version AS agent_version, s.group_id AS group_id
ORDER BY activity_score DESC, started_at DESC
LIMIT $limit
