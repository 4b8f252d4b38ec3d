-- Exploration of agents that act. A campaign may name a tool environment
-- for its exploration sessions: a scenario whose tools (declared responses,
-- a workspace) the sessions are offered. A session's reply then keeps its
-- steps, each tool call the engine answered before it (JSON [Step]), as
-- run_turns.steps holds a fixed run's (0024).
ALTER TABLE campaigns ADD COLUMN tool_env TEXT;
ALTER TABLE session_turns ADD COLUMN steps TEXT;
