-- Production conversations imported from OpenTelemetry traces. A
-- conversation is one row, keyed by its conversation id (or trace id):
-- a later import of more of its spans extends the row. The list reads the
-- summary columns; `body` holds the conversation itself (trace ids and
-- messages, JSON).
CREATE TABLE trace_conversations (
    id          TEXT PRIMARY KEY NOT NULL,   -- UUID v7
    key         TEXT NOT NULL UNIQUE,
    target_id   TEXT REFERENCES targets(id),
    source      TEXT NOT NULL,
    imported_at INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    started_at  TEXT,
    model       TEXT,
    user_turns  INTEGER NOT NULL,
    messages    INTEGER NOT NULL,
    traces      INTEGER NOT NULL,
    first_user  TEXT NOT NULL,
    body        TEXT NOT NULL
);
CREATE INDEX trace_conversations_by_time ON trace_conversations (imported_at DESC, id);
