-- Named API keys with roles, for a server a team shares: `agenteval keys`
-- and the /api/keys routes create, list and revoke them; the server looks
-- each request's X-API-Key up by its hash. The key itself is never stored:
-- key_hash is the SHA-256 of it in hexadecimal, prefix its first
-- characters for lists. The audit trail names the key of each call in
-- audit_events.actor (`key:<name>`), which needs no new column.

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY NOT NULL,   -- UUID v7
    name         TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    key_hash     TEXT NOT NULL UNIQUE,        -- SHA-256 of the key, hexadecimal
    prefix       TEXT NOT NULL,               -- e.g. aek_1a2b3c4d, not secret
    created_at   INTEGER NOT NULL,
    revoked_at   INTEGER,
    last_used_at INTEGER                      -- kept to the minute
);
