// The web view's errors of one session, each with the earlier sessions that hit the same error
// (its SEEN_BEFORE links: the latest earlier occurrence and the first) and the fix used there.
// Parameters: $group_id (the project; required), $session (a full session id), $limit.
MATCH (s:Entity:Session)-[r:RELATES_TO]->(e:Entity:ErrorResolution)
WHERE r.name + '' = 'RESOLVED_ERROR' AND e.group_id = $group_id AND s.session_id = $session
WITH r, e
ORDER BY e.error
LIMIT $limit
// A traversal's far end carries no label: the relation's name says what it is, and FalkorDB checks
// a label again for every row (half the time of a query of every row).
OPTIONAL MATCH (e)-[_r1:RELATES_TO]->(af) WHERE _r1.name + '' = 'AFFECTS_FILE'
WITH r, e, collect(DISTINCT af.path) AS files
OPTIONAL MATCH (e)-[_r2:RELATES_TO]->(earlier) WHERE _r2.name + '' = 'SEEN_BEFORE'
WITH r, e, files,
     collect(DISTINCT CASE WHEN earlier IS NULL THEN null
                           ELSE [earlier.session_id, coalesce(earlier.fix, '')] END) AS seen_before
RETURN e.error AS error, coalesce(e.root_cause, '') AS root_cause, coalesce(e.fix, '') AS fix,
       coalesce(e.verification, '') AS verification, files, seen_before, r.valid_at AS valid_at
ORDER BY error
