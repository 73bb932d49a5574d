// How did the test runs go over time: framework, passed / total, failures, coverage?
// Parameters: $group_id (null: every group), $session (a session id or a prefix of it),
// $since / $until (bounds on the edge's valid_at, the session end), $limit.
// Every parameter but $limit may be null (no filter). Oldest first.
// The runs are filtered, ordered and cut by their own fields (a record's created_at is its
// session's end, the edge's valid_at) before the relation to their session is followed.
MATCH (t:TestRun)
WHERE ($group_id IS NULL OR t.group_id = $group_id)
  AND ($session IS NULL OR t.session_id STARTS WITH $session)
  AND ($since IS NULL OR t.created_at >= $since)
  AND ($until IS NULL OR t.created_at <= $until)
WITH t ORDER BY t.created_at, t.session_id LIMIT $limit
MATCH (s:Entity:Session)-[r:RELATES_TO]->(t) WHERE r.name + '' = 'RAN_TESTS'
RETURN s.session_id AS session_id, t.framework AS framework, t.passed AS passed,
       t.total AS total, t.failed AS failed, coalesce(t.skipped, 0) AS skipped,
       t.coverage_pct AS coverage_pct, coalesce(t.failed_tests, []) AS failed_tests,
       r.valid_at AS valid_at, t.group_id AS group_id
ORDER BY valid_at, session_id
LIMIT $limit
