-- `runs_campaign_seq` (0006) repeats the index SQLite already keeps for the
-- table's UNIQUE (campaign_id, seq) constraint; every run inserted paid for
-- both.
DROP INDEX runs_campaign_seq;
