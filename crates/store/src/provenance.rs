//! What each campaign contacted: the hosts counted in memory, written with
//! the writer's batches, and read back for the campaign's provenance.

use super::Read;
use super::sql::{Conn, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::provenance::{
    Contacts, HostContact, HostRole, Pending, Provenance, is_loopback,
};
use std::collections::HashMap;

/// Writes what `contacts` counted since the last batch, in the batch's
/// transaction; what the transaction did not store is counted again by
/// [`Contacts::restore`].
pub fn flush_contacts(contacts: &Contacts, conn: &Conn<'_>) -> Result<Pending> {
    let counts = contacts.take();
    if counts.is_empty() {
        return Ok(Pending(HashMap::new()));
    }
    let write = || -> Result<()> {
        for ((campaign, role, host), c) in &counts {
            conn.exec(
                "INSERT INTO campaign_hosts (campaign_id, role, host, requests, tokens_in, tokens_out)
                 VALUES (?, ?, ?, ?, ?, ?)
                 ON CONFLICT (campaign_id, role, host) DO UPDATE SET
                     requests = campaign_hosts.requests + excluded.requests,
                     tokens_in = campaign_hosts.tokens_in + excluded.tokens_in,
                     tokens_out = campaign_hosts.tokens_out + excluded.tokens_out",
                args![
                    campaign.to_string(),
                    role.as_str(),
                    host,
                    c.requests as i64,
                    c.tokens_in as i64,
                    c.tokens_out as i64,
                ],
            )?;
        }
        Ok(())
    };
    match write() {
        Ok(()) => Ok(Pending(counts)),
        Err(e) => {
            contacts.give_back(counts);
            // Once per batch of the writer's (a hot path): the context is
            // static.
            Err(e).context("store: storing the hosts contacted")
        }
    }
}

impl Read<'_> {
    /// A campaign's provenance as stored.
    pub fn provenance(&self, campaign_id: CampaignId) -> Result<Provenance> {
        let doing = move || format!("store: reading the provenance of campaign {campaign_id}");
        let mut statement = self
            .sqlite()?
            .prepare_cached(
                "SELECT role, host, requests, tokens_in, tokens_out FROM campaign_hosts
             WHERE campaign_id = ? ORDER BY role, host",
            )
            .with_context(doing)?;
        let hosts = statement
            .query_map([campaign_id.to_string()], |r| {
                let host: String = r.get(1)?;
                Ok(HostContact {
                    loopback: is_loopback(&host),
                    role: HostRole::parse(&r.get::<_, String>(0)?),
                    host,
                    requests: r.get::<_, i64>(2)? as u64,
                    tokens_in: r.get::<_, i64>(3)? as u64,
                    tokens_out: r.get::<_, i64>(4)? as u64,
                })
            })
            .with_context(doing)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .with_context(doing)?;
        let mut hosts = hosts;
        hosts.sort_by(|a, b| a.role.cmp(&b.role).then_with(|| a.host.cmp(&b.host)));
        Ok(Provenance {
            nothing_left_machine: hosts.iter().all(|h| h.loopback),
            hosts,
        })
    }
}
