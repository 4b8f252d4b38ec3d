-- Production conversations imported from OpenTelemetry traces: the table
-- of SQLite's 0022_trace_conversations.sql, with the types of the
-- baseline (text in the C collation, UTC milliseconds as bigint).
CREATE TABLE trace_conversations (
    id          text COLLATE "C" PRIMARY KEY,   -- UUID v7
    key         text COLLATE "C" NOT NULL UNIQUE,
    target_id   text COLLATE "C" REFERENCES targets(id),
    source      text COLLATE "C" NOT NULL,
    imported_at bigint NOT NULL,
    updated_at  bigint NOT NULL,
    started_at  text COLLATE "C",
    model       text COLLATE "C",
    user_turns  bigint NOT NULL,
    messages    bigint NOT NULL,
    traces      bigint NOT NULL,
    first_user  text COLLATE "C" NOT NULL,
    body        text COLLATE "C" NOT NULL
);
CREATE INDEX trace_conversations_by_time ON trace_conversations (imported_at DESC, id);
