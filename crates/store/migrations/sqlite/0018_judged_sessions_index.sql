-- The judged sessions of a campaign, for the calibration's count of those
-- nobody labelled yet: a report reads it without visiting every session.
CREATE INDEX sessions_judged ON exploration_sessions(campaign_id) WHERE judge_status = 'done';
