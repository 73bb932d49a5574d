// What did we decide (about a file, a topic, in a session, in a time window), and why?
// Parameters: $group_id (null: every group), $file (a File path: decisions that AFFECTS_FILE it
// or were made in a session that MODIFIED_FILE it), $text (case-insensitive substring of the
// decision or its rationale), $since / $until (bounds on the edge's valid_at, the session end),
// $session (a session id or a prefix of it, such as its 8-character short id), $min_confidence
// (decisions whose extractor confidence is at least this; one stored without a confidence, by an
// older version or the LLM summarizer, does not pass), $limit.
// Every parameter but $limit may be null (no filter). With $file, the rows that name the file
// come first (names_file true), then those that only share a session with it; newest first.
MATCH (s:Entity:Session)-[r:RELATES_TO]->(d:Entity:Decision)
WHERE r.name = 'MADE_DECISION'
  AND ($group_id IS NULL OR d.group_id = $group_id)
  AND ($session IS NULL OR s.session_id STARTS WITH $session)
  AND ($since IS NULL OR r.valid_at >= $since)
  AND ($until IS NULL OR r.valid_at <= $until)
  AND ($text IS NULL
       OR toLower(d.decision) CONTAINS toLower($text)
       OR toLower(coalesce(d.rationale, '')) CONTAINS toLower($text))
  AND ($min_confidence IS NULL OR coalesce(d.confidence, -1.0) >= $min_confidence)
OPTIONAL MATCH (d)-[a:RELATES_TO {name: 'AFFECTS_FILE'}]->(af:Entity:File)
WITH s, r, d, collect(DISTINCT af.path) AS files
// with $file:
OPTIONAL MATCH (s)-[m:RELATES_TO {name: 'MODIFIED_FILE'}]->(mf:Entity:File {path: $file})
WITH s, r, d, files, count(mf) AS session_modified_file
WHERE $file IS NULL OR $file IN files OR session_modified_file > 0
// end with $file
RETURN s.session_id AS session_id, d.decision AS decision, coalesce(d.rationale, '') AS rationale,
       coalesce(d.alternatives, []) AS alternatives, d.confidence AS confidence, d.by AS by,
       files, r.valid_at AS valid_at,
       d.group_id AS group_id, ($file IS NOT NULL AND $file IN files) AS names_file
ORDER BY names_file DESC, valid_at DESC, decision
LIMIT $limit
