-- Facts about the data folder itself. `written_by`: the version of
-- AgentEval that last opened it, so that an older build refusing a newer
-- folder can name the version that wrote it.
CREATE TABLE app_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
