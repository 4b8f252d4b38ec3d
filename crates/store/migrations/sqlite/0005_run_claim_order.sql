-- The scheduler claims due runs in (scheduled_at, seq) order with a LIMIT.
-- With seq in the index the claim reads only the rows it takes, instead of
-- sorting every pending run of every campaign on each claim.
CREATE INDEX runs_due_order ON runs(status, scheduled_at, seq);
DROP INDEX runs_due;
