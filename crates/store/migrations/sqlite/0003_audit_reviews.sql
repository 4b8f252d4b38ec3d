-- Audit events, human reviews and stored analyses.

CREATE TABLE audit_events (
    id        TEXT PRIMARY KEY NOT NULL,
    at        INTEGER NOT NULL,
    actor     TEXT NOT NULL,                  -- api-key | desktop | cli | engine | patrol
    action    TEXT NOT NULL,                  -- e.g. "POST /api/exploration/sessions", "campaign.finalize"
    subject   TEXT,                           -- id of the entity acted on
    outcome   TEXT NOT NULL,                  -- ok | error code
    detail    TEXT                            -- JSON, never secrets
);
CREATE INDEX audit_at ON audit_events(at);

CREATE TABLE human_reviews (
    id           TEXT PRIMARY KEY NOT NULL,
    subject_kind TEXT NOT NULL,               -- run | session
    subject_id   TEXT NOT NULL,
    rating       INTEGER NOT NULL,            -- 1..5
    comment      TEXT NOT NULL DEFAULT '',
    judge_override TEXT,                      -- JSON, optional verdict override
    created_at   INTEGER NOT NULL
);
CREATE INDEX human_reviews_subject ON human_reviews(subject_kind, subject_id);

CREATE TABLE analyses (
    id           TEXT PRIMARY KEY NOT NULL,
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    model        TEXT NOT NULL,               -- model identity, or "template" offline
    offline      INTEGER NOT NULL,
    content      TEXT NOT NULL,               -- JSON Analysis
    created_at   INTEGER NOT NULL
);
CREATE INDEX analyses_campaign ON analyses(campaign_id, created_at);
