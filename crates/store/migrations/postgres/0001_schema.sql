-- The PostgreSQL schema, baseline: the SQLite schema after its migration
-- 0018 (migrations/sqlite/), table for table, column for column, with the
-- same primary keys, unique keys, indexes (partial ones included), foreign
-- keys (all ON DELETE NO ACTION, as in SQLite), CHECK constraints and
-- defaults. tests/schema_parity/ compares the two, each built by its
-- migrations on a real server; its EXCEPTIONS list holds every difference,
-- each with its reason.
--
-- Types, chosen so that the store binds and reads the same Rust values on
-- both backends (sqlx checks a parameter's type on PostgreSQL and refuses,
-- for instance, a `text` parameter for a `uuid`, `jsonb` or `json` column):
--
--   SQLite                        PostgreSQL
--   TEXT id (UUID v7, as text)    text COLLATE "C": the store binds
--                                 `id.to_string()` and parses what it
--                                 reads (sqlx would bind a `Uuid` as a
--                                 16-byte BLOB on SQLite, so it never binds
--                                 one); a `uuid` column would refuse those
--                                 text parameters. Some id columns hold
--                                 other ids too (scenario ids from files,
--                                 audit subjects).
--   INTEGER time                  bigint: UTC milliseconds since the epoch
--                                 (`agenteval_domain::clock::to_ms`), so
--                                 the queries keep their shape (windows,
--                                 slices, keyset pages are arithmetic).
--   INTEGER count, size, seq      bigint: SQLite's INTEGER is 64-bit and
--                                 the store reads every one as `i64`
--                                 (sqlx refuses to read an int4 as i64).
--   INTEGER used as a boolean     boolean: the store binds and reads
--                                 `bool` (sqlx reads SQLite's 0/1 as bool;
--                                 PostgreSQL refuses a bool for a bigint).
--                                 analyses.offline, ledger_entries.allowed,
--                                 session_tally.{seeded, has_experience,
--                                 record, goal_achieved, simulator_fault}.
--                                 Queries compare with TRUE/FALSE, not 1/0:
--                                 SQLite (3.23 on) reads those as 1/0, so
--                                 one text serves both.
--   REAL                          double precision (SQLite's REAL is an
--                                 8-byte float).
--   TEXT                          text COLLATE "C": byte order (code point
--                                 order in UTF-8), which is SQLite's BINARY
--                                 collation, so ORDER BY, keyset pages and
--                                 range comparisons agree whatever locale
--                                 the database was created with.
--   TEXT holding JSON             text COLLATE "C" as well, not jsonb: the
--                                 store binds and reads serde_json strings
--                                 (a `text` parameter does not go into a
--                                 json/jsonb column); documents come back
--                                 byte for byte (key order, content
--                                 hashes, exports); jsonb refuses \u0000,
--                                 which text from targets and models may
--                                 hold; and no query needs a JSON index or
--                                 containment. The few queries that look
--                                 inside a document (seed_ref, judge_review,
--                                 simulator_faults, campaigns.models,
--                                 session_issue_tally.session_ids/texts)
--                                 cast it (`seed_ref::jsonb ->> 'goal_id'`),
--                                 as SQLite parses its text on each call.
--   WITHOUT ROWID                 a plain table with the same primary key.
--   a table without primary key   the same (run_turns: UNIQUE (run_id, seq)
--                                 over NOT NULL columns, as in SQLite).
--   rowid                         ledger_entries.rowid, an identity column:
--                                 the ledger is read `ORDER BY at, rowid`
--                                 (insertion order within a millisecond).
--                                 The only other query naming a rowid is
--                                 the writer's claim of due runs, which on
--                                 PostgreSQL picks runs by id (FOR UPDATE
--                                 SKIP LOCKED).
--
-- Left out, because the PostgreSQL store does in Rust what they do in
-- SQLite (SQLite moves the same work to Rust after its 0018): the views
-- session_facts, session_scores and session_review_findings and the
-- triggers sessions_tally_* and sessions_fault_tally_*, which keep the
-- session tallies. Kept: the trigger runs_planned_before_finished (a guard
-- the run tallies rely on, not a tally).
--
-- PostgreSQL's text holds no U+0000 (SQLite's does): the store must
-- decide what a NUL in a target's reply becomes before writing it (JSON
-- text is safe: serde writes it as the escape \u0000).
--
-- pending_backfills starts empty: its rows ask for data that rows stored
-- before a migration lack, and a new database has no such rows.
--
-- Not here yet, on purpose: run leases (claimed_by / lease_until), the
-- patrol agent's cluster-wide lease and named API keys. Their shape
-- belongs with the code that takes and renews them; each is a later
-- migration (adding a nullable column is instant in PostgreSQL).

CREATE TABLE targets (
    id                 text COLLATE "C" PRIMARY KEY,
    name               text COLLATE "C" NOT NULL,
    channel            text COLLATE "C" NOT NULL,    -- JSON ChannelConfig, secrets never in clear
    concurrency        bigint NOT NULL DEFAULT 4,
    rate_per_second    double precision,             -- NULL = unlimited
    timeout_ms         bigint NOT NULL DEFAULT 15000,
    max_retries        bigint NOT NULL DEFAULT 2,
    price_in_per_mtok  double precision NOT NULL DEFAULT 0,
    price_out_per_mtok double precision NOT NULL DEFAULT 0,
    created_at         bigint NOT NULL,
    updated_at         bigint NOT NULL,
    archived_at        bigint
);

CREATE TABLE scenarios (
    id           text COLLATE "C" PRIMARY KEY,       -- stable id from the file
    pack         text COLLATE "C" NOT NULL,
    title        text COLLATE "C" NOT NULL,
    tags         text COLLATE "C" NOT NULL,          -- JSON array of strings
    definition   text COLLATE "C" NOT NULL,          -- JSON Scenario
    source_file  text COLLATE "C" NOT NULL,
    content_hash text COLLATE "C" NOT NULL,
    loaded_at    bigint NOT NULL
);

CREATE TABLE campaigns (
    id                   text COLLATE "C" PRIMARY KEY,
    name                 text COLLATE "C" NOT NULL,
    target_id            text COLLATE "C" NOT NULL REFERENCES targets(id),
    status               text COLLATE "C" NOT NULL,  -- draft | scheduled | running | finalized | cancelled
    window_start         bigint NOT NULL,
    window_end           bigint NOT NULL,
    time_scale           double precision NOT NULL DEFAULT 1,
    plan                 text COLLATE "C" NOT NULL,  -- JSON Plan
    previous_campaign_id text COLLATE "C" REFERENCES campaigns(id),
    finalized_at         bigint,
    created_at           bigint NOT NULL,
    updated_at           bigint NOT NULL,
    seed_set             text COLLATE "C" NOT NULL DEFAULT '{"personas":[],"goals":[]}',
    budget               text COLLATE "C",           -- JSON Budget, NULL = platform defaults
    seed_fingerprint     text COLLATE "C" NOT NULL DEFAULT '',
    last_patrolled_at    bigint,
    models               text COLLATE "C"            -- JSON: who played target, virtual user, judge
);
CREATE INDEX campaigns_target ON campaigns (target_id, created_at);
CREATE INDEX campaigns_status ON campaigns (status);

CREATE TABLE runs (
    id            text COLLATE "C" PRIMARY KEY,
    campaign_id   text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    scenario_id   text COLLATE "C" NOT NULL,
    scenario_hash text COLLATE "C" NOT NULL,
    seq           bigint NOT NULL,                   -- order within the campaign plan
    offset_ms     bigint NOT NULL,                   -- campaign-time offset from window start
    scheduled_at  bigint NOT NULL,                   -- real time when due
    status        text COLLATE "C" NOT NULL,         -- pending | running | done
    verdict       text COLLATE "C",                  -- passed | failed | error (when done)
    check_results text COLLATE "C",                  -- JSON [CheckResult]
    metrics       text COLLATE "C",                  -- JSON RunMetrics
    error_reason  text COLLATE "C",
    started_at    bigint,
    finished_at   bigint,
    created_at    bigint NOT NULL,
    UNIQUE (campaign_id, seq)
);
-- Only open runs, so that a verdict removes the run from the index; the
-- claim names the condition to use it.
CREATE INDEX runs_open ON runs (status, scheduled_at, seq) WHERE status <> 'done';

-- A run is planned before it is finished: the run tallies count a run
-- when it finishes, so a run inserted as done would never be counted.
CREATE FUNCTION runs_planned_before_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a run is planned before it is finished';
END;
$$;
CREATE TRIGGER runs_planned_before_finished BEFORE INSERT ON runs
    FOR EACH ROW WHEN (NEW.status = 'done') EXECUTE FUNCTION runs_planned_before_finished();

CREATE TABLE run_turns (
    run_id     text COLLATE "C" NOT NULL REFERENCES runs(id),
    seq        bigint NOT NULL,
    role       text COLLATE "C" NOT NULL,            -- user | target
    content    text COLLATE "C" NOT NULL,
    latency_ms bigint,
    tokens_in  bigint,
    tokens_out bigint,
    tool_calls text COLLATE "C",                     -- JSON [ToolCall]
    created_at bigint NOT NULL,
    UNIQUE (run_id, seq)
);

CREATE TABLE exploration_sessions (
    id               text COLLATE "C" PRIMARY KEY,
    campaign_id      text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    target_id        text COLLATE "C" NOT NULL REFERENCES targets(id),
    persona          text COLLATE "C" NOT NULL,      -- JSON
    goal             text COLLATE "C" NOT NULL,      -- JSON
    seed_ref         text COLLATE "C",               -- JSON SeedRef, NULL for manual sessions without a seed
    status           text COLLATE "C" NOT NULL,      -- running | completed | failed | expired
    trigger_kind     text COLLATE "C" NOT NULL,      -- auto | manual
    end_reason       text COLLATE "C",
    experience       text COLLATE "C",               -- JSON ExperienceRecord
    judge_review     text COLLATE "C",               -- JSON JudgeReview
    judge_status     text COLLATE "C" NOT NULL DEFAULT 'none', -- none | pending | done | failed
    turn_count       bigint NOT NULL DEFAULT 0,      -- user turns
    failure_reason   text COLLATE "C",
    started_at       bigint NOT NULL,
    ended_at         bigint,
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL,
    played_by        text COLLATE "C" NOT NULL DEFAULT 'assistant', -- person | assistant | builtin | model
    user_model       text COLLATE "C",
    simulator_faults text COLLATE "C"                -- JSON [SimulatorFault], NULL until checked
);
CREATE INDEX sessions_campaign ON exploration_sessions (campaign_id, started_at);
CREATE INDEX sessions_status ON exploration_sessions (status);
CREATE INDEX sessions_campaign_status ON exploration_sessions (campaign_id, status, started_at);
CREATE INDEX sessions_judged ON exploration_sessions (campaign_id) WHERE judge_status = 'done';

CREATE TABLE session_turns (
    id         text COLLATE "C" PRIMARY KEY,
    session_id text COLLATE "C" NOT NULL REFERENCES exploration_sessions(id),
    seq        bigint NOT NULL,
    role       text COLLATE "C" NOT NULL,            -- user | target
    content    text COLLATE "C" NOT NULL,
    latency_ms bigint,
    created_at bigint NOT NULL,
    UNIQUE (session_id, seq)
);

-- Append-only; no foreign key, as in SQLite: a refused create has no
-- session, and entries outlive what they name.
CREATE TABLE ledger_entries (
    id          text COLLATE "C" PRIMARY KEY,
    campaign_id text COLLATE "C" NOT NULL,
    session_id  text COLLATE "C",
    action      text COLLATE "C" NOT NULL,           -- create | message | close
    allowed     boolean NOT NULL,
    reason_code text COLLATE "C",                    -- guardrail code when refused
    at          bigint NOT NULL,
    rowid       bigint GENERATED ALWAYS AS IDENTITY  -- SQLite's implicit rowid: insertion order
);
CREATE INDEX ledger_campaign ON ledger_entries (campaign_id, at);

CREATE TABLE audit_events (
    id      text COLLATE "C" PRIMARY KEY,
    at      bigint NOT NULL,
    actor   text COLLATE "C" NOT NULL,               -- api-key | desktop | cli | engine | patrol
    action  text COLLATE "C" NOT NULL,               -- e.g. "POST /api/exploration/sessions", "campaign.finalize"
    subject text COLLATE "C",                        -- id of the entity acted on
    outcome text COLLATE "C" NOT NULL,               -- ok | error code
    detail  text COLLATE "C"                         -- JSON, never secrets
);
CREATE INDEX audit_at ON audit_events (at);

CREATE TABLE human_reviews (
    id             text COLLATE "C" PRIMARY KEY,
    subject_kind   text COLLATE "C" NOT NULL,        -- run | session
    subject_id     text COLLATE "C" NOT NULL,
    rating         bigint NOT NULL,                  -- 1..5
    comment        text COLLATE "C" NOT NULL DEFAULT '',
    judge_override text COLLATE "C",                 -- JSON, optional verdict override
    created_at     bigint NOT NULL
);
CREATE INDEX human_reviews_subject ON human_reviews (subject_kind, subject_id);

CREATE TABLE analyses (
    id          text COLLATE "C" PRIMARY KEY,
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    model       text COLLATE "C" NOT NULL,           -- model identity, or "template" offline
    offline     boolean NOT NULL,
    content     text COLLATE "C" NOT NULL,           -- JSON Analysis
    created_at  bigint NOT NULL
);
CREATE INDEX analyses_campaign ON analyses (campaign_id, created_at);

-- The report's fixed-scenario tallies, kept by the writer as runs finish.
CREATE TABLE run_verdict_tally (
    campaign_id      text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    scenario_id      text COLLATE "C" NOT NULL,
    verdict          text COLLATE "C" NOT NULL,      -- '' when the run has none
    runs             bigint NOT NULL,
    with_metrics     bigint NOT NULL,                -- runs with metrics
    completed        bigint NOT NULL,                -- of which every turn got a reply
    latency_runs     bigint NOT NULL,                -- runs with at least one reply
    latency_mean_sum double precision NOT NULL,      -- sum of their mean reply latency
    tokens_in        bigint NOT NULL,
    tokens_out       bigint NOT NULL,
    cost             double precision NOT NULL,
    coverage_runs    bigint NOT NULL,                -- runs with a key-field coverage
    coverage_sum     double precision NOT NULL,
    PRIMARY KEY (campaign_id, scenario_id, verdict)
);

CREATE TABLE run_timeline_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    slice       bigint NOT NULL,                     -- one of 12 of the campaign window
    verdict     text COLLATE "C" NOT NULL,
    runs        bigint NOT NULL,
    PRIMARY KEY (campaign_id, slice, verdict)
);

CREATE TABLE run_failing_check_tally (
    campaign_id    text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    scenario_id    text COLLATE "C" NOT NULL,
    kind           text COLLATE "C" NOT NULL,
    detail         text COLLATE "C" NOT NULL,
    count          bigint NOT NULL,
    example_run_id text COLLATE "C" NOT NULL,        -- one run it failed in
    PRIMARY KEY (campaign_id, scenario_id, kind, detail)
);

CREATE TABLE run_error_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    reason      text COLLATE "C" NOT NULL,
    count       bigint NOT NULL,
    PRIMARY KEY (campaign_id, reason)
);

CREATE TABLE run_latency_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    latency_ms  bigint NOT NULL,
    count       bigint NOT NULL,
    PRIMARY KEY (campaign_id, latency_ms)
);

CREATE TABLE pending_backfills (
    name text COLLATE "C" PRIMARY KEY
);

-- The report's exploration tallies, kept by the store as sessions change.
CREATE TABLE session_tally (
    campaign_id     text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    status          text COLLATE "C" NOT NULL,
    end_reason      text COLLATE "C" NOT NULL,       -- '' while running
    trigger_kind    text COLLATE "C" NOT NULL,
    judge_status    text COLLATE "C" NOT NULL,
    seeded          boolean NOT NULL,                -- has a seed_ref
    persona_id      text COLLATE "C" NOT NULL,       -- '' when unseeded
    goal_id         text COLLATE "C" NOT NULL,
    has_experience  boolean NOT NULL,                -- a record that counts (not a simulator error)
    record          boolean NOT NULL,                -- of which the session completed
    goal_achieved   boolean NOT NULL,                -- the record (any) says the goal was achieved
    emotion         text COLLATE "C" NOT NULL,       -- '' without a record that counts
    simulator_fault boolean NOT NULL,                -- simulator error, or the review blames the simulator
    sessions        bigint NOT NULL,
    issues          bigint NOT NULL,                 -- blockers and misled points reported
    PRIMARY KEY (campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id,
                 goal_id, has_experience, record, goal_achieved, emotion, simulator_fault)
);

CREATE TABLE session_dimension_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    name        text COLLATE "C" NOT NULL,
    score_sum   double precision NOT NULL,
    count       bigint NOT NULL,
    PRIMARY KEY (campaign_id, name)
);

CREATE TABLE session_issue_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    kind        text COLLATE "C" NOT NULL,           -- blocker | misled
    key         text COLLATE "C" NOT NULL,
    text        text COLLATE "C" NOT NULL,           -- as first reported
    sessions    bigint NOT NULL,
    session_ids text COLLATE "C" NOT NULL,           -- JSON array: the first sessions that reported it
    texts       text COLLATE "C" NOT NULL DEFAULT '[]', -- JSON array: every phrasing reported
    PRIMARY KEY (campaign_id, kind, key)
);

-- The findings of each reviewed session, in session start order, then in
-- the order the review lists them.
CREATE TABLE session_findings (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    started_at  bigint NOT NULL,
    session_id  text COLLATE "C" NOT NULL,
    seq         bigint NOT NULL,
    severity    text COLLATE "C" NOT NULL,
    dimension   text COLLATE "C",
    text        text COLLATE "C" NOT NULL,
    evidence    text COLLATE "C",
    turn        bigint,
    PRIMARY KEY (campaign_id, started_at, session_id, seq)
);

CREATE TABLE session_fault_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    kind        text COLLATE "C" NOT NULL,
    sessions    bigint NOT NULL,                     -- sessions with at least one fault of the kind
    faults      bigint NOT NULL,                     -- faults of the kind
    PRIMARY KEY (campaign_id, kind)
);

CREATE TABLE campaign_hosts (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    role        text COLLATE "C" NOT NULL,           -- target | virtual_user | judge | analyst
    host        text COLLATE "C" NOT NULL,           -- scheme://host:port, never a path or a key
    requests    bigint NOT NULL,
    tokens_in   bigint NOT NULL,
    tokens_out  bigint NOT NULL,
    PRIMARY KEY (campaign_id, role, host)
);

CREATE TABLE judge_labels (
    id              text COLLATE "C" PRIMARY KEY,
    campaign_id     text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    session_id      text COLLATE "C" NOT NULL UNIQUE REFERENCES exploration_sessions(id),
    attitude        bigint NOT NULL CHECK (attitude BETWEEN 1 AND 5),
    professionalism bigint NOT NULL CHECK (professionalism BETWEEN 1 AND 5),
    hallucination   bigint NOT NULL CHECK (hallucination BETWEEN 1 AND 5),
    reviewer        text COLLATE "C" NOT NULL DEFAULT '',
    created_at      bigint NOT NULL
);
CREATE INDEX judge_labels_campaign ON judge_labels (campaign_id, created_at);

CREATE TABLE judge_second_passes (
    session_id  text COLLATE "C" PRIMARY KEY REFERENCES exploration_sessions(id),
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    variation   text COLLATE "C" NOT NULL,           -- reversed_rounds | reworded_rubric
    review      text COLLATE "C" NOT NULL,           -- JSON JudgeReview of the second pass
    created_at  bigint NOT NULL
);
CREATE INDEX judge_second_passes_campaign ON judge_second_passes (campaign_id);

CREATE TABLE app_meta (
    key   text COLLATE "C" PRIMARY KEY,
    value text COLLATE "C" NOT NULL
);

CREATE TABLE judge_run_labels (
    id          text COLLATE "C" PRIMARY KEY,
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    run_id      text COLLATE "C" NOT NULL REFERENCES runs(id),
    check_index bigint NOT NULL,                     -- position in the run's check_results
    score       bigint NOT NULL CHECK (score BETWEEN 1 AND 5),
    reviewer    text COLLATE "C" NOT NULL DEFAULT '',
    created_at  bigint NOT NULL,
    UNIQUE (run_id, check_index)
);
CREATE INDEX judge_run_labels_campaign ON judge_run_labels (campaign_id, created_at);
