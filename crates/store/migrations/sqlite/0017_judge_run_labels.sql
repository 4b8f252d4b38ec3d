-- Blind human labels of the judge's scores of rubric checks in fixed runs:
-- one row per rubric check of a run (its position among the run's check
-- results), on the judge's own 1-5 scale, so that the judge's rubric
-- scores can be compared with people's (Cohen's kappa, criterion `rubric`).
-- A run is labelled once, all its rubric checks together.

CREATE TABLE judge_run_labels (
    id           TEXT PRIMARY KEY NOT NULL,
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    run_id       TEXT NOT NULL REFERENCES runs(id),
    check_index  INTEGER NOT NULL,            -- position in the run's check_results
    score        INTEGER NOT NULL CHECK (score BETWEEN 1 AND 5),
    reviewer     TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    UNIQUE (run_id, check_index)
);
CREATE INDEX judge_run_labels_campaign ON judge_run_labels(campaign_id, created_at);
