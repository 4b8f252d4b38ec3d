-- The report's fixed-scenario figures are kept up to date as runs change,
-- so that a report reads a few hundred tally rows instead of every run and
-- every turn. Triggers keep them, in the same transaction as the change,
-- whatever writes the runs (the engine's writer, restart recovery,
-- finalize); this migration fills them for the runs already stored.
--
-- They rely on two rules, which the triggers below enforce:
-- * a run is planned before it is finished (it is never inserted as done);
-- * a verdict is final: a finished run's result never changes.

-- Runs by status (planned = all of them; pending).
CREATE TABLE run_status_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    status      TEXT NOT NULL,
    runs        INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, status)
) WITHOUT ROWID;

-- Finished runs by scenario, slice of the campaign window (one of 12) and
-- verdict, with the sums of their metrics.
CREATE TABLE run_verdict_tally (
    campaign_id       TEXT NOT NULL REFERENCES campaigns(id),
    scenario_id       TEXT NOT NULL,
    slice             INTEGER NOT NULL,
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
    PRIMARY KEY (campaign_id, scenario_id, slice, verdict)
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

-- What one finished run adds to the tallies: the one definition used by
-- the trigger and by the backfill below. `m` is the metrics object, NULL
-- when the run has none.
CREATE VIEW finished_run_facts AS
SELECT id, campaign_id, scenario_id, verdict, slice, error_reason, check_results,
    m IS NOT NULL AS with_metrics,
    coalesce(m ->> '$.completed', 0) = 1 AS completed,
    coalesce(m ->> '$.turns', 0) > 0 AS has_latency,
    CASE WHEN m ->> '$.turns' > 0
         THEN CAST(m ->> '$.latency_ms_total' AS REAL) / (m ->> '$.turns') ELSE 0.0 END AS latency_mean,
    coalesce(m ->> '$.tokens_in', 0) AS tokens_in,
    coalesce(m ->> '$.tokens_out', 0) AS tokens_out,
    coalesce(m ->> '$.cost', 0.0) AS cost,
    coalesce(json_type(m, '$.key_field_coverage') IN ('integer', 'real'), 0) AS has_coverage,
    CASE WHEN json_type(m, '$.key_field_coverage') IN ('integer', 'real')
         THEN m ->> '$.key_field_coverage' ELSE 0.0 END AS coverage
FROM (
    SELECT r.id, r.campaign_id, r.scenario_id, coalesce(r.verdict, '') AS verdict,
        min(max(r.offset_ms * 12 / max(CAST(round((c.window_end - c.window_start) * c.time_scale) AS INTEGER), 1), 0), 11) AS slice,
        CASE WHEN r.verdict = 'error'
             THEN trim(substr(coalesce(r.error_reason, 'unknown'), 1,
                              instr(coalesce(r.error_reason, 'unknown') || ':', ':') - 1),
                       ' ' || char(9, 10, 12, 13)) END AS error_reason,
        CASE WHEN json_valid(r.check_results) THEN r.check_results ELSE '[]' END AS check_results,
        CASE WHEN json_valid(r.metrics) THEN
            CASE WHEN json_type(r.metrics) = 'object' THEN r.metrics END END AS m
    FROM runs r JOIN campaigns c ON c.id = r.campaign_id
    WHERE r.status = 'done'
);

-- The failed checks of a finished run whose verdict counts.
CREATE VIEW finished_run_failing_checks AS
SELECT f.id, f.campaign_id, f.scenario_id,
    coalesce(c.value ->> '$.kind', '') AS kind, coalesce(c.value ->> '$.detail', '') AS detail
FROM finished_run_facts f, json_each(f.check_results) c
WHERE f.verdict IN ('passed', 'failed', 'error')
  AND json_type(c.value) = 'object' AND c.value ->> '$.passed' = 0;

CREATE TRIGGER runs_planned_before_finished BEFORE INSERT ON runs WHEN NEW.status = 'done'
BEGIN
    SELECT RAISE(ABORT, 'a run is planned before it is finished');
END;

CREATE TRIGGER runs_verdict_is_final
BEFORE UPDATE OF campaign_id, scenario_id, offset_ms, status, verdict, check_results, metrics, error_reason
ON runs WHEN OLD.status = 'done'
BEGIN
    SELECT RAISE(ABORT, 'a finished run is final');
END;

CREATE TRIGGER runs_tally_planned AFTER INSERT ON runs
BEGIN
    INSERT INTO run_status_tally (campaign_id, status, runs) VALUES (NEW.campaign_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER runs_tally_status AFTER UPDATE OF status ON runs WHEN OLD.status IS NOT NEW.status
BEGIN
    UPDATE run_status_tally SET runs = runs - 1
    WHERE campaign_id = OLD.campaign_id AND status = OLD.status;
    INSERT INTO run_status_tally (campaign_id, status, runs) VALUES (NEW.campaign_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET runs = runs + 1;
END;

-- A run's turns are written before its verdict, so the latencies are all
-- there when it finishes.
CREATE TRIGGER runs_tally_finished AFTER UPDATE OF status ON runs
WHEN NEW.status = 'done' AND OLD.status IS NOT 'done'
BEGIN
    INSERT INTO run_verdict_tally (campaign_id, scenario_id, slice, verdict, runs, with_metrics,
        completed, latency_runs, latency_mean_sum, tokens_in, tokens_out, cost, coverage_runs, coverage_sum)
    SELECT campaign_id, scenario_id, slice, verdict, 1, with_metrics, completed, has_latency,
        latency_mean, tokens_in, tokens_out, cost, has_coverage, coverage
    FROM finished_run_facts WHERE id = NEW.id
    ON CONFLICT DO UPDATE SET runs = runs + 1,
        with_metrics = with_metrics + excluded.with_metrics,
        completed = completed + excluded.completed,
        latency_runs = latency_runs + excluded.latency_runs,
        latency_mean_sum = latency_mean_sum + excluded.latency_mean_sum,
        tokens_in = tokens_in + excluded.tokens_in,
        tokens_out = tokens_out + excluded.tokens_out,
        cost = cost + excluded.cost,
        coverage_runs = coverage_runs + excluded.coverage_runs,
        coverage_sum = coverage_sum + excluded.coverage_sum;
    INSERT INTO run_failing_check_tally (campaign_id, scenario_id, kind, detail, count, example_run_id)
    SELECT campaign_id, scenario_id, kind, detail, count(*), id
    FROM finished_run_failing_checks WHERE id = NEW.id GROUP BY kind, detail
    ON CONFLICT DO UPDATE SET count = count + excluded.count;
    INSERT INTO run_error_tally (campaign_id, reason, count)
    SELECT campaign_id, error_reason, 1 FROM finished_run_facts
    WHERE id = NEW.id AND error_reason IS NOT NULL
    ON CONFLICT DO UPDATE SET count = count + 1;
    INSERT INTO run_latency_tally (campaign_id, latency_ms, count)
    SELECT NEW.campaign_id, max(latency_ms, 0), count(*) FROM run_turns
    WHERE run_id = NEW.id AND role = 'target' AND latency_ms IS NOT NULL
    GROUP BY 2
    ON CONFLICT DO UPDATE SET count = count + excluded.count;
END;

-- Backfill.
INSERT INTO run_status_tally (campaign_id, status, runs)
SELECT campaign_id, status, count(*) FROM runs GROUP BY 1, 2;

INSERT INTO run_verdict_tally (campaign_id, scenario_id, slice, verdict, runs, with_metrics,
    completed, latency_runs, latency_mean_sum, tokens_in, tokens_out, cost, coverage_runs, coverage_sum)
SELECT campaign_id, scenario_id, slice, verdict, count(*), sum(with_metrics), sum(completed),
    sum(has_latency), sum(latency_mean), sum(tokens_in), sum(tokens_out), sum(cost),
    sum(has_coverage), sum(coverage)
FROM finished_run_facts GROUP BY 1, 2, 3, 4;

INSERT INTO run_failing_check_tally (campaign_id, scenario_id, kind, detail, count, example_run_id)
SELECT campaign_id, scenario_id, kind, detail, count(*), min(id)
FROM finished_run_failing_checks GROUP BY 1, 2, 3, 4;

INSERT INTO run_error_tally (campaign_id, reason, count)
SELECT campaign_id, error_reason, count(*) FROM finished_run_facts
WHERE error_reason IS NOT NULL GROUP BY 1, 2;

INSERT INTO run_latency_tally (campaign_id, latency_ms, count)
SELECT r.campaign_id, max(t.latency_ms, 0), count(*)
FROM run_turns t JOIN runs r ON r.id = t.run_id
WHERE r.status = 'done' AND t.role = 'target' AND t.latency_ms IS NOT NULL
GROUP BY 1, 2;
