-- Who played the user in a session, apart from who started it (trigger):
-- `person` (typed in the app), `assistant` (an external client of the HTTP
-- API), `builtin` (the persona engine) or `model` (a configured
-- virtual-user model, named in `user_model`).
--
-- Sessions stored before this migration did not record it. Automatic
-- sessions were started by the patrol agent, which plays them itself: they
-- become `builtin` (whether a model played them was not recorded). Manual
-- sessions keep the default, `assistant`, the HTTP API's default.
ALTER TABLE exploration_sessions ADD COLUMN played_by TEXT NOT NULL DEFAULT 'assistant';
ALTER TABLE exploration_sessions ADD COLUMN user_model TEXT;
UPDATE exploration_sessions SET played_by = 'builtin' WHERE trigger_kind = 'auto';

-- Session drill-down pages by status within a campaign, in start order.
CREATE INDEX sessions_campaign_status ON exploration_sessions(campaign_id, status, started_at);
