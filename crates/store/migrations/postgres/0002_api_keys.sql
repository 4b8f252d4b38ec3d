-- Named API keys with roles: the table of SQLite's 0020_api_keys.sql, with
-- the types of the baseline (0001_schema.sql): text ids and text in the C
-- collation, UTC milliseconds as bigint. The key itself is never stored:
-- key_hash is its SHA-256 in hexadecimal, prefix its first characters.

CREATE TABLE api_keys (
    id           text COLLATE "C" PRIMARY KEY,   -- UUID v7
    name         text COLLATE "C" NOT NULL UNIQUE,
    role         text COLLATE "C" NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    key_hash     text COLLATE "C" NOT NULL UNIQUE, -- SHA-256 of the key, hexadecimal
    prefix       text COLLATE "C" NOT NULL,      -- e.g. aek_1a2b3c4d, not secret
    created_at   bigint NOT NULL,
    revoked_at   bigint,
    last_used_at bigint                          -- kept to the minute
);
