-- Blind human labels of judged exploration sessions, on the judge's own
-- criteria, so that judge and people can be compared (Cohen's kappa per
-- criterion); and the judge's second pass over a session with the order of
-- turns or the rubric's wording varied, for its self-agreement.

CREATE TABLE judge_labels (
    id              TEXT PRIMARY KEY NOT NULL,
    campaign_id     TEXT NOT NULL REFERENCES campaigns(id),
    session_id      TEXT NOT NULL UNIQUE REFERENCES exploration_sessions(id),
    attitude        INTEGER NOT NULL CHECK (attitude BETWEEN 1 AND 5),
    professionalism INTEGER NOT NULL CHECK (professionalism BETWEEN 1 AND 5),
    hallucination   INTEGER NOT NULL CHECK (hallucination BETWEEN 1 AND 5),
    reviewer        TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL
);
CREATE INDEX judge_labels_campaign ON judge_labels(campaign_id, created_at);

CREATE TABLE judge_second_passes (
    session_id   TEXT PRIMARY KEY NOT NULL REFERENCES exploration_sessions(id),
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    variation    TEXT NOT NULL,               -- reversed_rounds | reworded_rubric
    review       TEXT NOT NULL,               -- JSON JudgeReview of the second pass
    created_at   INTEGER NOT NULL
);
CREATE INDEX judge_second_passes_campaign ON judge_second_passes(campaign_id);
