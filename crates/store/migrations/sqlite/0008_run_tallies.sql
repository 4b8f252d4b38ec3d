-- The report's fixed-scenario figures are kept up to date as runs finish,
-- so that a report reads a few hundred tally rows instead of every run and
-- every turn. The engine's writer adds each run to them in the transaction
-- that finishes it, whichever way it finishes (a verdict, restart recovery,
-- finalize's skips), and fills them for the runs already stored when it
-- first opens the database after this migration (`pending_backfills`).
--
-- They rely on two rules: a run is planned before it is finished (it is
-- never inserted as done, which the trigger below enforces), and a verdict
-- is final (the engine writes a verdict only over a run not yet done).

-- Finished runs by scenario and verdict, with the sums of their metrics.
CREATE TABLE run_verdict_tally (
    campaign_id       TEXT NOT NULL REFERENCES campaigns(id),
    scenario_id       TEXT NOT NULL,
    verdict           TEXT NOT NULL,          -- '' when the run has none
    runs              INTEGER NOT NULL,
    with_metrics      INTEGER NOT NULL,       -- runs with metrics
    completed         INTEGER NOT NULL,       -- of which every turn got a reply
    latency_runs      INTEGER NOT NULL,       -- runs with at least one reply
    latency_mean_sum  REAL NOT NULL,          -- sum of their mean reply latency
    tokens_in         INTEGER NOT NULL,
    tokens_out        INTEGER NOT NULL,
    cost              REAL NOT NULL,
    coverage_runs     INTEGER NOT NULL,       -- runs with a key-field coverage
    coverage_sum      REAL NOT NULL,
    PRIMARY KEY (campaign_id, scenario_id, verdict)
) WITHOUT ROWID;

-- Finished runs by slice of the campaign window (one of 12) and verdict.
CREATE TABLE run_timeline_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    slice       INTEGER NOT NULL,
    verdict     TEXT NOT NULL,
    runs        INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, slice, verdict)
) WITHOUT ROWID;

-- Failed checks of finished runs, by scenario, check kind and detail.
CREATE TABLE run_failing_check_tally (
    campaign_id     TEXT NOT NULL REFERENCES campaigns(id),
    scenario_id     TEXT NOT NULL,
    kind            TEXT NOT NULL,
    detail          TEXT NOT NULL,
    count           INTEGER NOT NULL,
    example_run_id  TEXT NOT NULL,            -- one run it failed in
    PRIMARY KEY (campaign_id, scenario_id, kind, detail)
) WITHOUT ROWID;

-- Runs in error by the kind of their reason (the text before the first
-- colon, without surrounding ASCII white space).
CREATE TABLE run_error_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    reason      TEXT NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, reason)
) WITHOUT ROWID;

-- Reply latencies of finished runs: how many replies took each value, so
-- that percentiles are exact.
CREATE TABLE run_latency_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    latency_ms  INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, latency_ms)
) WITHOUT ROWID;

CREATE TRIGGER runs_planned_before_finished BEFORE INSERT ON runs WHEN NEW.status = 'done'
BEGIN
    SELECT RAISE(ABORT, 'a run is planned before it is finished');
END;

-- Data the engine fills itself once, after the migrations have run, with
-- the code that keeps it.
CREATE TABLE pending_backfills (
    name TEXT PRIMARY KEY NOT NULL
);
INSERT INTO pending_backfills (name) VALUES ('run_tallies');
