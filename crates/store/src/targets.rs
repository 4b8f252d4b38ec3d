//! Targets: the agents under evaluation.

use super::Store;
use super::sql::{Row, args};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::TargetId;
use agenteval_domain::parse_id;
use agenteval_domain::target::Target;
use chrono::{DateTime, Utc};

impl Store {
    /// Stores a new target.
    pub async fn insert_target(&self, target: &Target) -> Result<()> {
        let id = target.id;
        let channel = serde_json::to_string(&target.channel)?;
        let t = target.clone();
        self.write(move |c| {
            c.exec(
                "INSERT INTO targets (id, name, channel, concurrency, rate_per_second, timeout_ms, max_retries,
                    price_in_per_mtok, price_out_per_mtok, created_at, updated_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                args![
                    t.id.to_string(),
                    &t.name,
                    channel,
                    t.concurrency as i64,
                    t.rate_per_second,
                    t.timeout_ms as i64,
                    t.max_retries as i64,
                    t.price_in_per_mtok,
                    t.price_out_per_mtok,
                    to_ms(t.created_at),
                    to_ms(t.updated_at),
                ],
            )
        })
        .await
        .with_context(|| format!("store: inserting target {id}"))?;
        Ok(())
    }

    /// Replaces the settings of target `target.id` (name, channel, limits,
    /// prices) and its `updated_at`; its creation and archiving stay.
    pub async fn update_target(&self, target: &Target) -> Result<()> {
        let id = target.id;
        let channel = serde_json::to_string(&target.channel)?;
        let t = target.clone();
        self.write(move |c| {
            c.exec(
                "UPDATE targets SET name = ?, channel = ?, concurrency = ?, rate_per_second = ?, timeout_ms = ?,
                    max_retries = ?, price_in_per_mtok = ?, price_out_per_mtok = ?, updated_at = ?
                 WHERE id = ?",
                args![
                    &t.name,
                    channel,
                    t.concurrency as i64,
                    t.rate_per_second,
                    t.timeout_ms as i64,
                    t.max_retries as i64,
                    t.price_in_per_mtok,
                    t.price_out_per_mtok,
                    to_ms(t.updated_at),
                    t.id.to_string(),
                ],
            )
        })
        .await
        .with_context(|| format!("store: updating target {id}"))?;
        Ok(())
    }

    /// Deletes target `id` if no campaign uses it, in one statement.
    /// Whether it was deleted.
    pub async fn delete_unused_target(&self, id: TargetId) -> Result<bool> {
        let deleted = self
            .write(move |c| {
                let key = id.to_string();
                c.exec(
                    "DELETE FROM targets WHERE id = ?
                     AND NOT EXISTS (SELECT 1 FROM campaigns WHERE target_id = ?)",
                    args![&key, &key],
                )
            })
            .await
            .with_context(|| format!("store: deleting target {id}"))?;
        Ok(deleted > 0)
    }

    /// Archives target `id` at `at`, unless it is archived already.
    pub async fn archive_target(&self, id: TargetId, at: DateTime<Utc>) -> Result<()> {
        let at = to_ms(at);
        self.write(move |c| {
            c.exec(
                "UPDATE targets SET archived_at = ?, updated_at = ? WHERE id = ? AND archived_at IS NULL",
                args![at, at, id.to_string()],
            )
        })
        .await
        .with_context(|| format!("store: archiving target {id}"))?;
        Ok(())
    }

    /// The targets, oldest first; archived ones too when asked.
    pub async fn targets(&self, include_archived: bool) -> Result<Vec<Target>> {
        let sql = if include_archived {
            "SELECT * FROM targets ORDER BY created_at, id"
        } else {
            "SELECT * FROM targets WHERE archived_at IS NULL ORDER BY created_at, id"
        };
        self.read(move |c| c.rows(sql, args![], target_from_row))
            .await
            .context("store: reading the targets")
    }

    /// The target `id`, if there is one.
    pub async fn target(&self, id: TargetId) -> Result<Option<Target>> {
        // On the hot path: each scheduler step.
        self.read(move |c| {
            c.row(
                "SELECT * FROM targets WHERE id = ?",
                args![id.to_string()],
                target_from_row,
            )
        })
        .await
        .context("store: reading a target")
    }
}

fn target_from_row(row: &Row<'_>) -> Result<Target> {
    Ok(Target {
        id: parse_id(row.str("id")?)?,
        name: row.get("name")?,
        channel: serde_json::from_str(row.str("channel")?)?,
        concurrency: row.get::<i64>("concurrency")? as u32,
        rate_per_second: row.get("rate_per_second")?,
        timeout_ms: row.get::<i64>("timeout_ms")? as u64,
        max_retries: row.get::<i64>("max_retries")? as u32,
        price_in_per_mtok: row.get("price_in_per_mtok")?,
        price_out_per_mtok: row.get("price_out_per_mtok")?,
        created_at: from_ms(row.get("created_at")?),
        updated_at: from_ms(row.get("updated_at")?),
        archived_at: row.get::<Option<i64>>("archived_at")?.map(from_ms),
    })
}
