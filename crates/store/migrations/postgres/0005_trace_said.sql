-- SQLite's 0023_trace_said.sql: what the users of an imported
-- conversation said, a turn a line, for the coverage grid.
ALTER TABLE trace_conversations ADD COLUMN said text COLLATE "C" NOT NULL DEFAULT '';
UPDATE trace_conversations SET said = coalesce((
    SELECT string_agg(t.m ->> 'content', E'\n' ORDER BY t.i)
    FROM jsonb_array_elements(trace_conversations.body::jsonb -> 'messages') WITH ORDINALITY AS t(m, i)
    WHERE t.m ->> 'role' = 'user'), '');
CREATE INDEX trace_conversations_by_target ON trace_conversations (target_id, imported_at DESC, id);
