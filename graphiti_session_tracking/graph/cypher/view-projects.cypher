// The web view's projects: each group with sessions, how many, and when its latest one ended.
// Parameters: $group_id (null: every group), $limit. Latest first.
MATCH (s:Entity:Session)
WHERE $group_id IS NULL OR s.group_id = $group_id
WITH s.group_id AS group_id, count(s) AS sessions,
     max(coalesce(s.ended_at, s.started_at)) AS last_at,
     collect(DISTINCT s.project_path) AS paths
RETURN group_id, sessions, last_at, paths[0] AS project_path
ORDER BY last_at DESC, group_id
LIMIT $limit
