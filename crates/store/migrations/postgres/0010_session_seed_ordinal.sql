-- SQLite's 0028_session_seed_ordinal.sql: a session's place among its
-- campaign's sessions of the same persona and goal, kept as it is created,
-- and the sessions of each such cell so far.
ALTER TABLE exploration_sessions ADD COLUMN seed_ordinal bigint;

CREATE TABLE seed_cell_sessions (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    persona_id  text COLLATE "C" NOT NULL,
    goal_id     text COLLATE "C" NOT NULL,
    sessions    bigint NOT NULL,
    PRIMARY KEY (campaign_id, persona_id, goal_id)
);

CREATE TEMP TABLE seed_cells AS
    SELECT id, campaign_id,
           coalesce(CAST(seed_ref AS jsonb) ->> 'persona_id', '') AS persona_id,
           coalesce(CAST(seed_ref AS jsonb) ->> 'goal_id', '') AS goal_id,
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
