-- The report's exploration block is kept up to date as sessions change,
-- like the fixed-scenario figures (0008), so that a report reads tallies
-- instead of every session:
-- * session counts (by status, end reason, trigger, judge status, seed
--   cell, experience and emotion) and judge dimension scores, kept by
--   triggers whatever writes the sessions;
-- * reported issues, grouped by a key only the engine computes (white
--   space folded, Unicode case-folded): written by the engine as a session
--   closes, and filled for sessions already closed when the engine first
--   opens the database after this migration (`pending_backfills`).
-- * every judge finding, one row each in the report's order, kept by
--   triggers too.

CREATE TABLE session_tally (
    campaign_id      TEXT NOT NULL REFERENCES campaigns(id),
    status           TEXT NOT NULL,
    end_reason       TEXT NOT NULL,          -- '' while running
    trigger_kind     TEXT NOT NULL,
    judge_status     TEXT NOT NULL,
    seeded           INTEGER NOT NULL,       -- has a seed_ref
    persona_id       TEXT NOT NULL,          -- '' when unseeded
    goal_id          TEXT NOT NULL,
    has_experience   INTEGER NOT NULL,       -- a record that counts (not a simulator error)
    record           INTEGER NOT NULL,       -- of which the session completed
    goal_achieved    INTEGER NOT NULL,       -- the record (any) says the goal was achieved
    emotion          TEXT NOT NULL,          -- '' without a record that counts
    simulator_fault  INTEGER NOT NULL,       -- simulator error, or the review blames the simulator
    sessions         INTEGER NOT NULL,
    issues           INTEGER NOT NULL,       -- blockers and misled points reported
    PRIMARY KEY (campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id,
                 goal_id, has_experience, record, goal_achieved, emotion, simulator_fault)
) WITHOUT ROWID;

CREATE TABLE session_dimension_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    name        TEXT NOT NULL,
    score_sum   REAL NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, name)
) WITHOUT ROWID;

CREATE TABLE session_issue_tally (
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    kind         TEXT NOT NULL,              -- blocker | misled
    key          TEXT NOT NULL,
    text         TEXT NOT NULL,              -- as first reported
    sessions     INTEGER NOT NULL,
    session_ids  TEXT NOT NULL,              -- JSON array: the first sessions that reported it
    PRIMARY KEY (campaign_id, kind, key)
) WITHOUT ROWID;

INSERT INTO pending_backfills (name) VALUES ('session_issue_tally');

-- The findings of each reviewed session, in session start order, then in
-- the order the review lists them.
CREATE TABLE session_findings (
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    started_at   INTEGER NOT NULL,
    session_id   TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    severity     TEXT NOT NULL,
    dimension    TEXT,
    text         TEXT NOT NULL,
    evidence     TEXT,
    turn         INTEGER,
    PRIMARY KEY (campaign_id, started_at, session_id, seq)
) WITHOUT ROWID;

-- What one session adds to `session_tally`: the one definition used by the
-- triggers and by the backfill below. Blank means Unicode White_Space only,
-- as the engine trims.
CREATE VIEW session_facts AS
SELECT id, campaign_id, status, end_reason, trigger_kind, judge_status,
    persona_id IS NOT NULL AS seeded, coalesce(persona_id, '') AS persona_id,
    coalesce(goal_id, '') AS goal_id,
    e IS NOT NULL AND NOT simulator_error AS has_experience,
    e IS NOT NULL AND NOT simulator_error AND status = 'completed' AS record,
    coalesce(json_type(e, '$.goal_achieved') = 'true', 0) AS goal_achieved,
    CASE WHEN e IS NOT NULL AND NOT simulator_error THEN coalesce(e ->> '$.emotion', '') ELSE '' END AS emotion,
    simulator_error OR coalesce(json_type(review, '$.simulator_fault') = 'true'
                                OR json_type(review, '$.simulator.at_fault') = 'true', 0) AS simulator_fault,
    CASE WHEN e IS NOT NULL AND NOT simulator_error THEN
        (SELECT count(*) FROM json_each(e, '$.blockers') i
         WHERE i.type = 'text' AND trim(i.value, char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193,
             8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288)) != '')
      + (SELECT count(*) FROM json_each(e, '$.misled') i
         WHERE i.type = 'text' AND trim(i.value, char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193,
             8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288)) != '')
    ELSE 0 END AS issues
FROM (
    SELECT s.id, s.campaign_id, s.status, coalesce(s.end_reason, '') AS end_reason, s.trigger_kind,
        s.judge_status,
        coalesce(s.end_reason = 'simulator_error', 0) AS simulator_error,
        CASE WHEN json_valid(s.seed_ref) THEN s.seed_ref ->> '$.persona_id' END AS persona_id,
        CASE WHEN json_valid(s.seed_ref) THEN s.seed_ref ->> '$.goal_id' END AS goal_id,
        CASE WHEN json_valid(s.experience) THEN
            CASE WHEN json_type(s.experience) = 'object' THEN s.experience END END AS e,
        CASE WHEN s.judge_status = 'done' AND json_valid(s.judge_review) THEN s.judge_review END AS review
    FROM exploration_sessions s
);

-- The judge's score per dimension of a reviewed session: `{"dimensions":
-- {"name": 4 | {"score": 4}}}`, the same under `scores`, or a list of
-- `{"name" | "dimension": ..., "score": 4}`.
CREATE VIEW session_scores AS
SELECT id, campaign_id, name, score FROM (
    SELECT r.id, r.campaign_id,
        CASE WHEN json_type(r.review, k.path) = 'object' THEN d.key
             WHEN d.type = 'object' THEN
                 CASE WHEN json_type(d.value, '$.name') IS NOT NULL
                      THEN CASE WHEN json_type(d.value, '$.name') = 'text' THEN d.value ->> '$.name' END
                      ELSE CASE WHEN json_type(d.value, '$.dimension') = 'text' THEN d.value ->> '$.dimension' END
                 END
        END AS name,
        CASE WHEN json_type(r.review, k.path) = 'object' AND d.type IN ('integer', 'real') THEN d.value
             WHEN d.type = 'object' AND json_type(d.value, '$.score') IN ('integer', 'real')
                 THEN d.value ->> '$.score'
        END AS score
    FROM (SELECT id, campaign_id,
              CASE WHEN judge_status = 'done' AND json_valid(judge_review) THEN judge_review END AS review
          FROM exploration_sessions) r
    JOIN (SELECT '$.dimensions' AS path UNION ALL SELECT '$.scores') k
    JOIN json_each(r.review, k.path) d
    WHERE json_type(r.review, k.path) IN ('object', 'array')
)
WHERE name IS NOT NULL AND score IS NOT NULL;

-- The findings of a reviewed session: a list under `findings` of plain
-- strings or of objects whose text, severity, dimension and evidence may go
-- by several names (the first present one counts; a non-text value counts
-- as its JSON).
CREATE VIEW session_review_findings AS
SELECT id, campaign_id, started_at, seq, severity, dimension, text, evidence, turn FROM (
    SELECT r.id, r.campaign_id, r.started_at, f.key AS seq,
        CASE WHEN f.type = 'object' THEN
            coalesce(CASE WHEN json_type(f.value, '$.severity') != 'null' THEN CASE WHEN json_type(f.value, '$.severity') = 'text' THEN f.value ->> '$.severity' ELSE f.value -> '$.severity' END
                 WHEN json_type(f.value, '$.grade') != 'null' THEN CASE WHEN json_type(f.value, '$.grade') = 'text' THEN f.value ->> '$.grade' ELSE f.value -> '$.grade' END
                 WHEN json_type(f.value, '$.level') != 'null' THEN CASE WHEN json_type(f.value, '$.level') = 'text' THEN f.value ->> '$.level' ELSE f.value -> '$.level' END
                 WHEN json_type(f.value, '$.rating') != 'null' THEN CASE WHEN json_type(f.value, '$.rating') = 'text' THEN f.value ->> '$.rating' ELSE f.value -> '$.rating' END
                 WHEN json_type(f.value, '$.verdict') != 'null' THEN CASE WHEN json_type(f.value, '$.verdict') = 'text' THEN f.value ->> '$.verdict' ELSE f.value -> '$.verdict' END END, 'unrated')
        ELSE 'unrated' END AS severity,
        CASE WHEN f.type = 'object' THEN CASE WHEN json_type(f.value, '$.dimension') != 'null' THEN CASE WHEN json_type(f.value, '$.dimension') = 'text' THEN f.value ->> '$.dimension' ELSE f.value -> '$.dimension' END
                 WHEN json_type(f.value, '$.category') != 'null' THEN CASE WHEN json_type(f.value, '$.category') = 'text' THEN f.value ->> '$.category' ELSE f.value -> '$.category' END END END AS dimension,
        CASE WHEN f.type = 'text' THEN nullif(trim(f.value, char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288)), '')
             WHEN f.type = 'object' THEN CASE WHEN json_type(f.value, '$.text') != 'null' THEN CASE WHEN json_type(f.value, '$.text') = 'text' THEN f.value ->> '$.text' ELSE f.value -> '$.text' END
                 WHEN json_type(f.value, '$.finding') != 'null' THEN CASE WHEN json_type(f.value, '$.finding') = 'text' THEN f.value ->> '$.finding' ELSE f.value -> '$.finding' END
                 WHEN json_type(f.value, '$.summary') != 'null' THEN CASE WHEN json_type(f.value, '$.summary') = 'text' THEN f.value ->> '$.summary' ELSE f.value -> '$.summary' END
                 WHEN json_type(f.value, '$.message') != 'null' THEN CASE WHEN json_type(f.value, '$.message') = 'text' THEN f.value ->> '$.message' ELSE f.value -> '$.message' END
                 WHEN json_type(f.value, '$.description') != 'null' THEN CASE WHEN json_type(f.value, '$.description') = 'text' THEN f.value ->> '$.description' ELSE f.value -> '$.description' END
                 WHEN json_type(f.value, '$.issue') != 'null' THEN CASE WHEN json_type(f.value, '$.issue') = 'text' THEN f.value ->> '$.issue' ELSE f.value -> '$.issue' END END
        END AS text,
        CASE WHEN f.type = 'object' THEN CASE WHEN json_type(f.value, '$.evidence') != 'null' THEN CASE WHEN json_type(f.value, '$.evidence') = 'text' THEN f.value ->> '$.evidence' ELSE f.value -> '$.evidence' END
                 WHEN json_type(f.value, '$.quote') != 'null' THEN CASE WHEN json_type(f.value, '$.quote') = 'text' THEN f.value ->> '$.quote' ELSE f.value -> '$.quote' END END END AS evidence,
        CASE WHEN f.type = 'object' AND json_type(f.value, '$.turn') = 'integer'
                  AND f.value ->> '$.turn' BETWEEN 0 AND 4294967295
             THEN f.value ->> '$.turn' END AS turn
    FROM (SELECT id, campaign_id, started_at,
              CASE WHEN judge_status = 'done' AND json_valid(judge_review) THEN judge_review END AS review
          FROM exploration_sessions) r
    JOIN json_each(r.review, '$.findings') f
    WHERE json_type(r.review, '$.findings') = 'array'
)
WHERE text IS NOT NULL;

-- A session's contribution leaves the tallies before it changes and comes
-- back after. Turn counts and times change on every message and are not
-- watched.
CREATE TRIGGER sessions_tally_insert AFTER INSERT ON exploration_sessions
BEGIN
    INSERT INTO session_tally
    SELECT campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id, goal_id,
        has_experience, record, goal_achieved, emotion, simulator_fault, 1, issues
    FROM session_facts WHERE id = NEW.id
    ON CONFLICT DO UPDATE SET sessions = sessions + 1, issues = issues + excluded.issues;
    INSERT INTO session_dimension_tally
    SELECT campaign_id, name, score, 1 FROM session_scores WHERE id = NEW.id
    ON CONFLICT DO UPDATE SET score_sum = score_sum + excluded.score_sum, count = count + 1;
    INSERT INTO session_findings
    SELECT campaign_id, started_at, id, seq, severity, dimension, text, evidence, turn
    FROM session_review_findings WHERE id = NEW.id;
END;

CREATE TRIGGER sessions_tally_leave
BEFORE UPDATE OF campaign_id, started_at, status, end_reason, trigger_kind, judge_status, seed_ref, experience,
    judge_review ON exploration_sessions
BEGIN
    INSERT INTO session_tally
    SELECT campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id, goal_id,
        has_experience, record, goal_achieved, emotion, simulator_fault, -1, -issues
    FROM session_facts WHERE id = OLD.id
    ON CONFLICT DO UPDATE SET sessions = sessions - 1, issues = issues + excluded.issues;
    INSERT INTO session_dimension_tally
    SELECT campaign_id, name, -score, -1 FROM session_scores WHERE id = OLD.id
    ON CONFLICT DO UPDATE SET score_sum = score_sum + excluded.score_sum, count = count - 1;
    DELETE FROM session_findings
    WHERE campaign_id = OLD.campaign_id AND started_at = OLD.started_at AND session_id = OLD.id;
END;

CREATE TRIGGER sessions_tally_enter
AFTER UPDATE OF campaign_id, started_at, status, end_reason, trigger_kind, judge_status, seed_ref, experience,
    judge_review ON exploration_sessions
BEGIN
    INSERT INTO session_tally
    SELECT campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id, goal_id,
        has_experience, record, goal_achieved, emotion, simulator_fault, 1, issues
    FROM session_facts WHERE id = NEW.id
    ON CONFLICT DO UPDATE SET sessions = sessions + 1, issues = issues + excluded.issues;
    INSERT INTO session_dimension_tally
    SELECT campaign_id, name, score, 1 FROM session_scores WHERE id = NEW.id
    ON CONFLICT DO UPDATE SET score_sum = score_sum + excluded.score_sum, count = count + 1;
    INSERT INTO session_findings
    SELECT campaign_id, started_at, id, seq, severity, dimension, text, evidence, turn
    FROM session_review_findings WHERE id = NEW.id;
END;

-- Backfill.
INSERT INTO session_tally
SELECT campaign_id, status, end_reason, trigger_kind, judge_status, seeded, persona_id, goal_id,
    has_experience, record, goal_achieved, emotion, simulator_fault, count(*), sum(issues)
FROM session_facts GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13;

INSERT INTO session_dimension_tally
SELECT campaign_id, name, sum(score), count(*) FROM session_scores GROUP BY 1, 2;

INSERT INTO session_findings
SELECT campaign_id, started_at, id, seq, severity, dimension, text, evidence, turn
FROM session_review_findings;
