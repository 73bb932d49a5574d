// How did a setting change over time: old and new values, in which session, when?
// Parameters: $group_id (null: every group), $setting (the setting, case-insensitive, by its full
// name or its last dotted part: 'line-length' finds 'tool.ruff.line-length'), $file (the config
// file's path as stored, relative to the project), $since / $until (bounds on the edge's valid_at,
// the session end), $session (a session id or a prefix of it), $current (true: only the value in
// force of each setting — not superseded by a later change of it, not removed), $limit.
// Every parameter but $limit may be null (no filter). Oldest first. `until` is when a later change
// of the same setting in the same file replaced this value (the edge's invalid_at; null: in force).
// The changes are filtered, and unless $current also ordered and cut, by their own fields (a
// record's created_at is its session's end, the edge's valid_at) before the relation to their
// session is followed; whether a value is still in force is on that relation (invalid_at).
MATCH (c:ConfigChange)
WHERE ($group_id IS NULL OR c.group_id = $group_id)
  AND ($session IS NULL OR c.session_id STARTS WITH $session)
  AND ($since IS NULL OR c.created_at >= $since)
  AND ($until IS NULL OR c.created_at <= $until)
  AND ($file IS NULL OR c.file = $file)
  AND ($current IS NULL OR c.new_value <> '(removed)')
  AND ($setting IS NULL
       OR toLower(c.setting) = toLower($setting)
       OR toLower(c.setting) ENDS WITH ('.' + toLower($setting)))
// without $current:
WITH c ORDER BY c.created_at, c.file, c.setting LIMIT $limit
// end without $current
MATCH (s:Entity:Session)-[r:RELATES_TO]->(c)
WHERE r.name + '' = 'CHANGED_CONFIG' AND ($current IS NULL OR r.invalid_at IS NULL)
RETURN c.setting AS setting, c.file AS file, c.old_value AS old_value, c.new_value AS new_value,
       coalesce(c.reason, '') AS reason, s.session_id AS session_id, r.valid_at AS valid_at,
       r.invalid_at AS until, c.group_id AS group_id
ORDER BY valid_at, file, setting
LIMIT $limit
