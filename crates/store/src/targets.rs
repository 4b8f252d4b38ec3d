//! Targets: the agents under evaluation.

use super::Store;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::TargetId;
use agenteval_domain::parse_id;
use agenteval_domain::target::Target;
use chrono::{DateTime, Utc};
use sqlx::Row;

impl Store {
    /// Stores a new target.
    pub async fn insert_target(&self, target: &Target) -> Result<()> {
        sqlx::query(
            "INSERT INTO targets (id, name, channel, concurrency, rate_per_second, timeout_ms, max_retries,
                price_in_per_mtok, price_out_per_mtok, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(target.id.to_string())
        .bind(&target.name)
        .bind(serde_json::to_string(&target.channel)?)
        .bind(target.concurrency as i64)
        .bind(target.rate_per_second)
        .bind(target.timeout_ms as i64)
        .bind(target.max_retries as i64)
        .bind(target.price_in_per_mtok)
        .bind(target.price_out_per_mtok)
        .bind(to_ms(target.created_at))
        .bind(to_ms(target.updated_at))
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: inserting target {}", target.id))?;
        Ok(())
    }

    /// Replaces the settings of target `target.id` (name, channel, limits,
    /// prices) and its `updated_at`; its creation and archiving stay.
    pub async fn update_target(&self, target: &Target) -> Result<()> {
        sqlx::query(
            "UPDATE targets SET name = ?, channel = ?, concurrency = ?, rate_per_second = ?, timeout_ms = ?,
                max_retries = ?, price_in_per_mtok = ?, price_out_per_mtok = ?, updated_at = ?
             WHERE id = ?",
        )
        .bind(&target.name)
        .bind(serde_json::to_string(&target.channel)?)
        .bind(target.concurrency as i64)
        .bind(target.rate_per_second)
        .bind(target.timeout_ms as i64)
        .bind(target.max_retries as i64)
        .bind(target.price_in_per_mtok)
        .bind(target.price_out_per_mtok)
        .bind(to_ms(target.updated_at))
        .bind(target.id.to_string())
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: updating target {}", target.id))?;
        Ok(())
    }

    /// Deletes target `id` if no campaign uses it, in one statement.
    /// Whether it was deleted.
    pub async fn delete_unused_target(&self, id: TargetId) -> Result<bool> {
        let deleted = sqlx::query(
            "DELETE FROM targets WHERE id = ?1
             AND NOT EXISTS (SELECT 1 FROM campaigns WHERE target_id = ?1)",
        )
        .bind(id.to_string())
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: deleting target {id}"))?
        .rows_affected();
        Ok(deleted > 0)
    }

    /// Archives target `id` at `at`, unless it is archived already.
    pub async fn archive_target(&self, id: TargetId, at: DateTime<Utc>) -> Result<()> {
        sqlx::query(
            "UPDATE targets SET archived_at = ?1, updated_at = ?1 WHERE id = ?2 AND archived_at IS NULL",
        )
        .bind(to_ms(at))
        .bind(id.to_string())
        .execute(self.sqlite_pool()?)
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
        let doing = "store: reading the targets";
        let rows = sqlx::query(sql)
            .fetch_all(self.sqlite_pool()?)
            .await
            .context(doing)?;
        rows.iter()
            .map(target_from_row)
            .collect::<Result<_>>()
            .context(doing)
    }

    /// The target `id`, if there is one.
    pub async fn target(&self, id: TargetId) -> Result<Option<Target>> {
        // On the hot path: each scheduler step.
        let doing = "store: reading a target";
        sqlx::query("SELECT * FROM targets WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .context(doing)?
            .map(|row| target_from_row(&row))
            .transpose()
            .context(doing)
    }
}

fn target_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Target> {
    Ok(Target {
        id: parse_id(row.try_get("id")?)?,
        name: row.try_get("name")?,
        channel: serde_json::from_str(row.try_get("channel")?)?,
        concurrency: row.try_get::<i64, _>("concurrency")? as u32,
        rate_per_second: row.try_get("rate_per_second")?,
        timeout_ms: row.try_get::<i64, _>("timeout_ms")? as u64,
        max_retries: row.try_get::<i64, _>("max_retries")? as u32,
        price_in_per_mtok: row.try_get("price_in_per_mtok")?,
        price_out_per_mtok: row.try_get("price_out_per_mtok")?,
        created_at: from_ms(row.try_get("created_at")?),
        updated_at: from_ms(row.try_get("updated_at")?),
        archived_at: row.try_get::<Option<i64>, _>("archived_at")?.map(from_ms),
    })
}
