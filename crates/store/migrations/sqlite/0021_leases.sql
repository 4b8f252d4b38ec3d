-- Leases, for several workers on one database (the team server on
-- PostgreSQL; SQLite gets the same schema so that the two stay alike).
--
-- A claimed run names its worker (claimed_by) and holds a lease until
-- lease_until (UTC milliseconds), which that worker renews while the run
-- executes; a run still running after its lease expired lost its worker,
-- and is claimed again by another, its attempts counting each claim (a
-- run with attempts > 1 was retried). NULL for runs claimed before this
-- migration and for runs never claimed.
--
-- leases: one row per job that one worker of the cluster runs at a time
-- (the patrol agent's wake-up, the judge worker, the audit retention): its
-- holder and the end of its lease.

ALTER TABLE runs ADD COLUMN claimed_by TEXT;
ALTER TABLE runs ADD COLUMN lease_until INTEGER;
ALTER TABLE runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

CREATE TABLE leases (
    name   TEXT PRIMARY KEY NOT NULL,
    holder TEXT NOT NULL,
    until  INTEGER NOT NULL
) WITHOUT ROWID;
