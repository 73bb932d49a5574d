// Which files did sessions modify, how many sessions touched each, and when last?
// Parameters: $group_id (null: every group), $since / $until (only modifications whose edge
// valid_at, the session end, falls in the window), $limit. Paths are relative to the project root.
MATCH (s:Entity:Session)-[r:RELATES_TO]->(f:Entity:File)
WHERE r.name + '' = 'MODIFIED_FILE' AND ($group_id IS NULL OR f.group_id = $group_id)
  AND ($since IS NULL OR r.valid_at >= $since)
  AND ($until IS NULL OR r.valid_at <= $until)
RETURN f.path AS path, f.group_id AS group_id, count(DISTINCT s) AS sessions,
       max(r.valid_at) AS last_modified_at
ORDER BY sessions DESC, path
LIMIT $limit
