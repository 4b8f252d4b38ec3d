-- SQLite's 0026_exploration_tools.sql: the scenario whose tools a
-- campaign's exploration sessions are offered, and a session reply's steps
-- (JSON [Step]).
ALTER TABLE campaigns ADD COLUMN tool_env text COLLATE "C";
ALTER TABLE session_turns ADD COLUMN steps text COLLATE "C";
