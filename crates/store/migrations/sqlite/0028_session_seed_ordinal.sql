-- A session's place among its campaign's sessions of the same persona and
-- goal, by start (1 = the first; the sessions without a seed together),
-- kept as the session is created: a report names the sessions it cites
-- ("第 3 次") by reading their rows, not by ranking every session of the
-- campaign. `seed_cell_sessions` counts the sessions of each cell so far.
ALTER TABLE exploration_sessions ADD COLUMN seed_ordinal INTEGER;

CREATE TABLE seed_cell_sessions (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    persona_id  TEXT NOT NULL,   -- '' for the sessions without a seed
    goal_id     TEXT NOT NULL,
    sessions    INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, persona_id, goal_id)
) WITHOUT ROWID;

CREATE TEMP TABLE seed_cells AS
    SELECT id, campaign_id,
           coalesce(CASE WHEN json_valid(seed_ref) THEN json_extract(seed_ref, '$.persona_id') END, '') AS persona_id,
           coalesce(CASE WHEN json_valid(seed_ref) THEN json_extract(seed_ref, '$.goal_id') END, '') AS goal_id,
           started_at
    FROM exploration_sessions;

UPDATE exploration_sessions SET seed_ordinal = ranked.ordinal
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY campaign_id, persona_id, goal_id
                                    ORDER BY started_at, id) AS ordinal
      FROM seed_cells) AS ranked
WHERE ranked.id = exploration_sessions.id;

INSERT INTO seed_cell_sessions (campaign_id, persona_id, goal_id, sessions)
    SELECT campaign_id, persona_id, goal_id, count(*) FROM seed_cells
    GROUP BY campaign_id, persona_id, goal_id;

DROP TABLE seed_cells;
