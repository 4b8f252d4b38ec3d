-- The exploration tallies of 0009 and 0013 (`session_tally`,
-- `session_dimension_tally`, `session_findings`, `session_fault_tally`)
-- are kept by the store in Rust from now on, as the fixed-scenario ones
-- (0008) are: every write that changes a session's tallied columns moves
-- the session in the tallies in its own transaction, with one function of
-- the session's stored values. One mechanism for both evidence lines, and
-- nothing in SQL for another database to port. The tables stay; the
-- triggers and the views only they used go.
--
-- The tallies are filled again from the sessions, with that function, when
-- the engine first opens the database after this migration
-- (`pending_backfills`), so that what a later write subtracts is what was
-- added.

DROP TRIGGER IF EXISTS sessions_tally_insert;
DROP TRIGGER IF EXISTS sessions_tally_leave;
DROP TRIGGER IF EXISTS sessions_tally_enter;
DROP TRIGGER IF EXISTS sessions_fault_tally_leave;
DROP TRIGGER IF EXISTS sessions_fault_tally_enter;
DROP VIEW IF EXISTS session_facts;
DROP VIEW IF EXISTS session_scores;
DROP VIEW IF EXISTS session_review_findings;

INSERT OR IGNORE INTO pending_backfills (name) VALUES ('session_tallies');
