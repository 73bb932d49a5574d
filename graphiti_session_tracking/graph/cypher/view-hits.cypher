// What the web view links a search hit to: the session a record belongs to, or a file's path.
// Parameters: $uuids (the hits' entity and relation uuids), $group_id (null: every group).
MATCH (n:Entity)
WHERE n.uuid IN $uuids AND ($group_id IS NULL OR n.group_id = $group_id)
RETURN n.uuid AS uuid, n.session_id AS session_id, n.path AS path
UNION ALL
MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
WHERE r.uuid IN $uuids AND ($group_id IS NULL OR r.group_id = $group_id)
RETURN r.uuid AS uuid, coalesce(a.session_id, b.session_id) AS session_id, coalesce(b.path, a.path) AS path
