// What did one session touch: every entity linked from it, by relation?
// Parameters: $session (required: a session id or a prefix of it, such as its 8-character short
// id), $group_id (null: every group), $limit.
MATCH (s:Entity:Session)-[r:RELATES_TO]->(n:Entity)
WHERE s.session_id STARTS WITH $session
  AND ($group_id IS NULL OR s.group_id = $group_id)
RETURN s.session_id AS session_id, r.name AS relation,
       [label IN labels(n) WHERE label <> 'Entity'][0] AS label, n.name AS name, r.fact AS fact,
       r.valid_at AS valid_at, s.group_id AS group_id
ORDER BY session_id, relation, name
LIMIT $limit
