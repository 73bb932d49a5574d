// Have we seen this error before: what caused it, what fixed it, how was the fix checked?
// Parameters: $group_id (null: every group), $text (case-insensitive substring of the error),
// $root_cause (case-insensitive substring of the root cause), $file (a File path: errors that
// AFFECTS_FILE it or were resolved in a session that MODIFIED_FILE it), $since / $until (bounds
// on the edge's valid_at, the session end), $session (a session id or a prefix of it), $limit.
// $seen_before (true: only errors hit more than once in the project). Every parameter but $limit
// may be null (no filter). With $file, the rows that name the file come first (names_file true),
// then those that only share a session with it; newest first. Each row says how often the same
// error (its signature, linked by SEEN_BEFORE) was hit in the project, first and last, and the
// latest fix recorded for it.
// The errors are chosen before any relation to their session is followed: a record's
// created_at is its session's end (the RESOLVED_ERROR edge's valid_at) and it carries its
// session_id, so filters, order and limit need no traversal.
// with $file:
// The file first (cheap): the sessions that modified it and the records that name it.
OPTIONAL MATCH (f:Entity:File {path: $file})
OPTIONAL MATCH (ms:Entity:Session)-[_r1:RELATES_TO]->(f) WHERE _r1.name + '' = 'MODIFIED_FILE'
WITH f, collect(DISTINCT ms.group_id + '/' + ms.session_id) AS modifying
OPTIONAL MATCH (nr:Entity:ErrorResolution)-[_r2:RELATES_TO]->(f) WHERE _r2.name + '' = 'AFFECTS_FILE'
WITH modifying, collect(DISTINCT nr.uuid) AS naming
// end with $file
// without $file:
WITH [] AS modifying, [] AS naming
// end without $file
// with $seen_before:
// Only errors hit again: their signature recurs in another session of their project (what the
// writer links by SEEN_BEFORE), found by grouping the records, a quarter of the time of walking
// the links (below, the chosen rows' links are walked all the same).
MATCH (e:ErrorResolution) WHERE e.signature IS NOT NULL
WITH modifying, naming, e.group_id AS project, e.signature AS signature,
     collect(e) AS hits, count(DISTINCT e.session_id) AS sessions
WHERE sessions > 1
UNWIND hits AS e
WITH modifying, naming, e
// end with $seen_before
// without $seen_before:
MATCH (e:ErrorResolution)  // its own label alone: given Entity too, FalkorDB may scan every entity
// end without $seen_before
WHERE ($group_id IS NULL OR e.group_id = $group_id)
  AND ($session IS NULL OR e.session_id STARTS WITH $session)
  AND ($since IS NULL OR e.created_at >= $since)
  AND ($until IS NULL OR e.created_at <= $until)
  AND ($text IS NULL OR toLower(e.error) CONTAINS toLower($text))
  AND ($root_cause IS NULL OR toLower(coalesce(e.root_cause, '')) CONTAINS toLower($root_cause))
// with $chosen:
  AND e.uuid IN $chosen
// end with $chosen
// with $file:
  AND ((e.group_id + '/' + e.session_id) IN modifying OR e.uuid IN naming)
// end with $file
WITH e, e.uuid IN naming AS names_file
ORDER BY names_file DESC, e.created_at DESC, e.error
LIMIT $limit  // the rest is read for these rows only (an error links to another only by SEEN_BEFORE)
// keys: RETURN e.uuid AS uuid, names_file, e.created_at AS valid_at, e.error AS error
MATCH (s:Entity:Session)-[r:RELATES_TO]->(e) WHERE r.name + '' = 'RESOLVED_ERROR'
// A traversal's far end carries no label: the relation's name says what it is, and FalkorDB checks
// a label again for every row (half the time of a query of every row).
OPTIONAL MATCH (e)-[_r3:RELATES_TO]->(af) WHERE _r3.name + '' = 'AFFECTS_FILE'
WITH s, r, e, names_file, collect(DISTINCT af.path) AS files
// Both directions, one at a time (FalkorDB follows an undirected pattern one way only).
OPTIONAL MATCH (e)-[_r4:RELATES_TO]->(earlier) WHERE _r4.name + '' = 'SEEN_BEFORE'
WITH s, r, e, files, names_file, collect(DISTINCT earlier) AS before
OPTIONAL MATCH (later)-[_r5:RELATES_TO]->(e) WHERE _r5.name + '' = 'SEEN_BEFORE'
WITH s, r, e, files, names_file, before, collect(DISTINCT later) AS after
WITH s, r, e, files, names_file, before + after + [e] AS occurrences
WHERE $seen_before IS NULL OR size(occurrences) > 1
UNWIND occurrences AS x
WITH s, r, e, files, names_file, x ORDER BY x.created_at, x.uuid
WITH s, r, e, files, names_file, collect(x) AS seen
WITH s, r, e, files, names_file, seen, [x IN seen WHERE coalesce(x.fix, '') <> ''] AS fixed
RETURN s.session_id AS session_id, e.error AS error, coalesce(e.root_cause, '') AS root_cause,
       coalesce(e.fix, '') AS fix, coalesce(e.verification, '') AS verification, files,
       r.valid_at AS valid_at, e.group_id AS group_id, names_file,
       size(seen) AS times_seen, seen[0].created_at AS first_seen, seen[size(seen) - 1].created_at AS last_seen,
       CASE WHEN size(fixed) = 0 THEN '' ELSE fixed[size(fixed) - 1].fix END AS last_fix
ORDER BY names_file DESC, valid_at DESC, error
LIMIT $limit
