-- Issues are grouped by a language-independent key: the built-in virtual
-- user's phrasings in Chinese and English of one issue share a key (as
-- `builtin:<name>`), other texts keep their folded form. Each issue keeps
-- every distinct phrasing it was reported in (`texts`, a JSON array).
--
-- The keys are computed by the engine only, so the tally is filled again
-- from the closed sessions when the engine first opens the database after
-- this migration (`pending_backfills`, as for 0009).

ALTER TABLE session_issue_tally ADD COLUMN texts TEXT NOT NULL DEFAULT '[]';

INSERT OR IGNORE INTO pending_backfills (name) VALUES ('session_issue_tally');
