-- Every ended exploration session is checked for simulator faults (the
-- virtual user invented a fact, left its persona's language, gave up too
-- early, went on after its goal was met, drifted from its goal): the list
-- is stored with the session, NULL until checked. The check is the
-- engine's, so sessions that ended before this migration are checked when
-- the engine first opens the database after it (`pending_backfills`).
--
-- A session with a simulator fault is never counted against the target:
-- like a simulator error (0009), its record adds no issue, emotion or
-- goal outcome and its judge scores are left out; it is counted under
-- `simulator_fault` and, per kind, in `session_fault_tally`.

ALTER TABLE exploration_sessions ADD COLUMN simulator_faults TEXT;

CREATE TABLE session_fault_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    kind        TEXT NOT NULL,
    sessions    INTEGER NOT NULL,            -- sessions with at least one fault of the kind
    faults      INTEGER NOT NULL,            -- faults of the kind
    PRIMARY KEY (campaign_id, kind)
) WITHOUT ROWID;

CREATE TRIGGER sessions_fault_tally_leave
BEFORE UPDATE OF campaign_id, simulator_faults ON exploration_sessions
WHEN json_valid(OLD.simulator_faults)
BEGIN
    INSERT INTO session_fault_tally
    SELECT OLD.campaign_id, f.value ->> '$.kind', -1, -count(*)
    FROM json_each(OLD.simulator_faults) f WHERE f.type = 'object' GROUP BY 2
    ON CONFLICT DO UPDATE SET sessions = sessions - 1, faults = faults + excluded.faults;
END;

CREATE TRIGGER sessions_fault_tally_enter
AFTER UPDATE OF campaign_id, simulator_faults ON exploration_sessions
WHEN json_valid(NEW.simulator_faults)
BEGIN
    INSERT INTO session_fault_tally
    SELECT NEW.campaign_id, f.value ->> '$.kind', 1, count(*)
    FROM json_each(NEW.simulator_faults) f WHERE f.type = 'object' GROUP BY 2
    ON CONFLICT DO UPDATE SET sessions = sessions + 1, faults = faults + excluded.faults;
END;

-- The tallies of 0009 learn the new column: a faulty session's record and
-- scores leave the target's figures.
DROP TRIGGER sessions_tally_insert;
DROP TRIGGER sessions_tally_leave;
DROP TRIGGER sessions_tally_enter;
DROP VIEW session_facts;
DROP VIEW session_scores;

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
        coalesce(s.end_reason = 'simulator_error', 0)
            OR coalesce(json_valid(s.simulator_faults) AND json_array_length(s.simulator_faults) > 0, 0)
            AS simulator_error,
        CASE WHEN json_valid(s.seed_ref) THEN s.seed_ref ->> '$.persona_id' END AS persona_id,
        CASE WHEN json_valid(s.seed_ref) THEN s.seed_ref ->> '$.goal_id' END AS goal_id,
        CASE WHEN json_valid(s.experience) THEN
            CASE WHEN json_type(s.experience) = 'object' THEN s.experience END END AS e,
        CASE WHEN s.judge_status = 'done' AND json_valid(s.judge_review) THEN s.judge_review END AS review
    FROM exploration_sessions s
);

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
              CASE WHEN judge_status = 'done' AND json_valid(judge_review)
                        AND NOT coalesce(json_valid(simulator_faults) AND json_array_length(simulator_faults) > 0, 0)
                   THEN judge_review END AS review
          FROM exploration_sessions) r
    JOIN (SELECT '$.dimensions' AS path UNION ALL SELECT '$.scores') k
    JOIN json_each(r.review, k.path) d
    WHERE json_type(r.review, k.path) IN ('object', 'array')
)
WHERE name IS NOT NULL AND score IS NOT NULL;

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
    judge_review, simulator_faults ON exploration_sessions
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
    judge_review, simulator_faults ON exploration_sessions
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


INSERT OR IGNORE INTO pending_backfills (name) VALUES ('simulator_faults');
-- Filled again after the check, without the faulty sessions' issues.
INSERT OR IGNORE INTO pending_backfills (name) VALUES ('session_issue_tally');
