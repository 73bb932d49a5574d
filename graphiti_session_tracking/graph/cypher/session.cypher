// What did one session touch: every entity linked from it, by relation?
// With $commit: the session that made that commit (its decisions, errors and files say why).
// Parameters: $session (a session id or a prefix of it, such as its 8-character short id),
// $commit (a commit sha or a prefix of it); one of them is required. $group_id (null: every
// group), $limit.
// with $commit:
MATCH (made:Entity:Session)-[mc:RELATES_TO]->(c:Entity:Commit)
WHERE mc.name + '' = 'MADE_COMMIT' AND c.sha STARTS WITH toLower($commit)
  AND ($group_id IS NULL OR c.group_id = $group_id)
WITH DISTINCT made.session_id AS commit_session
// end with $commit
MATCH (s:Entity:Session)-[r:RELATES_TO]->(n:Entity)
WHERE ($session IS NULL OR s.session_id STARTS WITH $session)
  AND ($group_id IS NULL OR s.group_id = $group_id)
// with $commit:
  AND s.session_id = commit_session
// end with $commit
RETURN s.session_id AS session_id, r.name AS relation,
       [label IN labels(n) WHERE label <> 'Entity'][0] AS label, n.name AS name, r.fact AS fact,
       r.valid_at AS valid_at, s.objective AS objective, s.agent AS agent, s.group_id AS group_id
ORDER BY session_id, relation, name
LIMIT $limit
