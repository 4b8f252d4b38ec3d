-- Exploration: campaign seed set and budget, sessions, session turns
-- (parallel to run_turns, never shared), and the append-only budget ledger.

ALTER TABLE campaigns ADD COLUMN seed_set TEXT NOT NULL DEFAULT '{"personas":[],"goals":[]}';
ALTER TABLE campaigns ADD COLUMN budget TEXT;                 -- JSON Budget, NULL = platform defaults
ALTER TABLE campaigns ADD COLUMN seed_fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE campaigns ADD COLUMN last_patrolled_at INTEGER;

CREATE TABLE exploration_sessions (
    id                TEXT PRIMARY KEY NOT NULL,
    campaign_id       TEXT NOT NULL REFERENCES campaigns(id),
    target_id         TEXT NOT NULL REFERENCES targets(id),
    persona           TEXT NOT NULL,          -- JSON
    goal              TEXT NOT NULL,          -- JSON
    seed_ref          TEXT,                   -- JSON SeedRef, NULL for manual sessions without a seed
    status            TEXT NOT NULL,          -- running | completed | failed | expired
    trigger_kind      TEXT NOT NULL,          -- auto | manual
    end_reason        TEXT,
    experience        TEXT,                   -- JSON ExperienceRecord
    judge_review      TEXT,                   -- JSON JudgeReview
    judge_status      TEXT NOT NULL DEFAULT 'none', -- none | pending | done | failed
    turn_count        INTEGER NOT NULL DEFAULT 0,   -- user turns
    failure_reason    TEXT,
    started_at        INTEGER NOT NULL,
    ended_at          INTEGER,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE INDEX sessions_campaign ON exploration_sessions(campaign_id, started_at);
CREATE INDEX sessions_status ON exploration_sessions(status);

CREATE TABLE session_turns (
    id          TEXT PRIMARY KEY NOT NULL,
    session_id  TEXT NOT NULL REFERENCES exploration_sessions(id),
    seq         INTEGER NOT NULL,
    role        TEXT NOT NULL,                -- user | target
    content     TEXT NOT NULL,
    latency_ms  INTEGER,
    created_at  INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE TABLE ledger_entries (
    id           TEXT PRIMARY KEY NOT NULL,
    campaign_id  TEXT NOT NULL,
    session_id   TEXT,
    action       TEXT NOT NULL,               -- create | message | close
    allowed      INTEGER NOT NULL,            -- 1 allowed, 0 refused
    reason_code  TEXT,                        -- guardrail code when refused
    at           INTEGER NOT NULL
);
CREATE INDEX ledger_campaign ON ledger_entries(campaign_id, at);
