// What did we decide (about a file, a topic, in a session, in a time window), and why?
// Parameters: $group_id (null: every group), $file (a File path: decisions that AFFECTS_FILE it
// or were made in a session that MODIFIED_FILE it), $text (case-insensitive substring of the
// decision or its rationale), $since / $until (bounds on the edge's valid_at, the session end),
// $session (a session id or a prefix of it, such as its 8-character short id), $min_confidence
// (decisions whose extractor confidence is at least this; one stored without a confidence, by an
// older version or the LLM summarizer, does not pass), $limit.
// Every parameter but $limit may be null (no filter). With $file, the rows that name the file
// come first (names_file true), then those that only share a session with it; newest first.
// `holds` is false once a later decision reversed it (`superseded_by` its sessions, `until` when).
// The decisions are chosen before any relation is followed: a record's created_at is its
// session's end (the MADE_DECISION edge's valid_at) and it carries its session_id, so filters,
// order and limit need no traversal, and only the rows shown are joined to their session.
// with $file:
// The file first (cheap): the sessions that modified it and the records that name it.
OPTIONAL MATCH (f:Entity:File {path: $file})
OPTIONAL MATCH (ms:Entity:Session)-[_r1:RELATES_TO]->(f) WHERE _r1.name + '' = 'MODIFIED_FILE'
WITH f, collect(DISTINCT ms.group_id + '/' + ms.session_id) AS modifying
OPTIONAL MATCH (nr:Entity:Decision)-[_r2:RELATES_TO]->(f) WHERE _r2.name + '' = 'AFFECTS_FILE'
WITH modifying, collect(DISTINCT nr.uuid) AS naming
// end with $file
MATCH (d:Decision)  // its own label alone: given Entity too, FalkorDB checks every row's labels again
WHERE ($group_id IS NULL OR d.group_id = $group_id)
  AND ($session IS NULL OR d.session_id STARTS WITH $session)
  AND ($since IS NULL OR d.created_at >= $since)
  AND ($until IS NULL OR d.created_at <= $until)
  AND ($text IS NULL
       OR toLower(d.decision) CONTAINS toLower($text)
       OR toLower(coalesce(d.rationale, '')) CONTAINS toLower($text))
  AND ($min_confidence IS NULL OR coalesce(d.confidence, -1.0) >= $min_confidence)
// with $chosen:
  AND d.uuid IN $chosen
// end with $chosen
// with $file:
  AND ((d.group_id + '/' + d.session_id) IN modifying OR d.uuid IN naming)
WITH d, d.uuid IN naming AS names_file
// end with $file
// without $file:
WITH d, false AS names_file
// end without $file
WITH d, names_file
ORDER BY names_file DESC, d.created_at DESC, d.decision
LIMIT $limit
// keys: RETURN d.uuid AS uuid, names_file, d.created_at AS valid_at, d.decision AS decision
MATCH (s:Entity:Session)-[r:RELATES_TO]->(d) WHERE r.name + '' = 'MADE_DECISION'
// A traversal's far end carries no label: the relation's name says what it is, and FalkorDB checks
// a label again for every row (half the time of a query of every row).
OPTIONAL MATCH (d)-[_r3:RELATES_TO]->(af) WHERE _r3.name + '' = 'AFFECTS_FILE'
WITH s, r, d, names_file, collect(DISTINCT af.path) AS files
// Whether it still holds: a later decision of the project that reverses it SUPERSEDES it.
OPTIONAL MATCH (later)-[_r4:RELATES_TO]->(d) WHERE _r4.name + '' = 'SUPERSEDES'
WITH s, r, d, files, names_file, collect(DISTINCT later.session_id) AS superseded_by
RETURN s.session_id AS session_id, d.decision AS decision, coalesce(d.rationale, '') AS rationale,
       coalesce(d.alternatives, []) AS alternatives, d.confidence AS confidence, d.by AS by,
       files, r.valid_at AS valid_at, d.group_id AS group_id, names_file,
       size(superseded_by) = 0 AS holds, superseded_by, r.invalid_at AS until
ORDER BY names_file DESC, valid_at DESC, decision
