-- Leases, for several workers on one database: the columns and table of
-- SQLite's 0021_leases.sql, with the types of the baseline (text in the C
-- collation, UTC milliseconds as bigint).
--
-- A claimed run names its worker (claimed_by) and holds a lease until
-- lease_until, which that worker renews while the run executes; a run
-- still running after its lease expired lost its worker and is claimed
-- again by another, attempts counting each claim (attempts > 1: retried).
-- leases: one row per job that one worker of the cluster runs at a time.

ALTER TABLE runs ADD COLUMN claimed_by text COLLATE "C";
ALTER TABLE runs ADD COLUMN lease_until bigint;
ALTER TABLE runs ADD COLUMN attempts bigint NOT NULL DEFAULT 0;

CREATE TABLE leases (
    name   text COLLATE "C" PRIMARY KEY,
    holder text COLLATE "C" NOT NULL,
    until  bigint NOT NULL
);
