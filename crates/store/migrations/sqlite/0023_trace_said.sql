-- What the users of an imported conversation said (their turns, a turn a
-- line), kept beside the conversation so that a report places production
-- on its coverage grid without reading every conversation whole.
ALTER TABLE trace_conversations ADD COLUMN said TEXT NOT NULL DEFAULT '';
UPDATE trace_conversations SET said = coalesce((
    SELECT group_concat(json_extract(m.value, '$.content'), char(10))
    FROM json_each(trace_conversations.body, '$.messages') AS m
    WHERE json_extract(m.value, '$.role') = 'user'), '');
CREATE INDEX trace_conversations_by_target ON trace_conversations (target_id, imported_at DESC, id);
