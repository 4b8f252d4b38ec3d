-- What left this machine: every host a campaign's requests went to, per
-- role (target, virtual_user, judge, analyst), with request counts and the
-- tokens the endpoints reported. Written by the engine's group-commit
-- writer from counts kept in memory; built-in agents contact no host and
-- add nothing. A host is `scheme://host:port`, never a path or a key.
CREATE TABLE campaign_hosts (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    role        TEXT NOT NULL,
    host        TEXT NOT NULL,
    requests    INTEGER NOT NULL,
    tokens_in   INTEGER NOT NULL,
    tokens_out  INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, role, host)
) WITHOUT ROWID;
