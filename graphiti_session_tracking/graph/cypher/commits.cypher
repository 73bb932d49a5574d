// Which commits did sessions make, and which session made this one (and so why)?
// Parameters: $group_id (null: every group), $sha (a commit sha or a prefix of it, at least 4
// characters), $file (a path as stored, relative to the project: commits that changed it),
// $session (a session id or a prefix of it), $since_text / $until_text (ISO 8601 UTC text,
// compared with the commit's time), $limit. Every parameter but $limit may be null (no filter).
// Newest first.
MATCH (s:Entity:Session)-[r:RELATES_TO]->(c:Entity:Commit)
WHERE r.name + '' = 'MADE_COMMIT'
  AND ($group_id IS NULL OR c.group_id = $group_id)
  AND ($sha IS NULL OR c.sha STARTS WITH toLower($sha))
  AND ($file IS NULL OR $file IN coalesce(c.files, []))
  AND ($session IS NULL OR s.session_id STARTS WITH $session)
  AND ($since_text IS NULL OR c.committed_at >= $since_text)
  AND ($until_text IS NULL OR c.committed_at <= $until_text)
RETURN c.sha AS sha, c.message AS message, c.branch AS branch, c.committed_at AS committed_at,
       coalesce(c.files, []) AS files, coalesce(c.pushed, false) AS pushed,
       c.pull_request AS pull_request, s.session_id AS session_id, s.objective AS objective,
       s.agent AS agent, c.group_id AS group_id
ORDER BY committed_at DESC, sha
LIMIT $limit
