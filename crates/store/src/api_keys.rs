//! Named API keys: their hashes, roles and use (migration 0020). The key
//! itself is never stored.

use super::Store;
use super::inspect::Inspect;
use agenteval_domain::api_key::{ApiKeyInfo, ApiKeyRole, NewApiKey};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::parse_id;
use chrono::{DateTime, Utc};
use sqlx::sqlite::SqliteRow;
use sqlx::{Column, Row};
use std::collections::BTreeMap;
use uuid::Uuid;

/// The columns a key's info is read from: never the hash.
const INFO: &str = "id, name, role, prefix, created_at, last_used_at, revoked_at";

impl Store {
    /// Stores a new key, unless one of the same name exists: whether it
    /// was stored.
    pub async fn insert_api_key(&self, key: &NewApiKey) -> Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO api_keys (id, name, role, key_hash, prefix, created_at)
             VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(key.id.to_string())
        .bind(&key.name)
        .bind(key.role.as_str())
        .bind(&key.key_hash)
        .bind(&key.prefix)
        .bind(to_ms(key.created_at))
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: inserting API key {}", key.name))?
        .rows_affected();
        Ok(inserted > 0)
    }

    /// Every key, revoked ones too, oldest first.
    pub async fn api_keys(&self) -> Result<Vec<ApiKeyInfo>> {
        let doing = "store: reading the API keys";
        let rows = sqlx::query(&format!(
            "SELECT {INFO} FROM api_keys ORDER BY created_at, id"
        ))
        .fetch_all(self.sqlite_pool()?)
        .await
        .context(doing)?;
        rows.iter()
            .map(api_key_from_row)
            .collect::<Result<_>>()
            .context(doing)
    }

    /// The key whose hash is `key_hash`, revoked or not.
    pub async fn api_key_by_hash(&self, key_hash: &str) -> Result<Option<ApiKeyInfo>> {
        // On the hot path: every request with a named key.
        let doing = "store: looking up an API key";
        sqlx::query(&format!("SELECT {INFO} FROM api_keys WHERE key_hash = ?"))
            .bind(key_hash)
            .fetch_optional(self.sqlite_pool()?)
            .await
            .context(doing)?
            .map(|row| api_key_from_row(&row))
            .transpose()
            .context(doing)
    }

    /// Revokes key `name` at `at`, unless it was revoked before (its first
    /// revocation stays): the key as it now is, or `None` for no such key.
    pub async fn revoke_api_key(
        &self,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<ApiKeyInfo>> {
        let doing = || format!("store: revoking API key {name}");
        sqlx::query(&format!(
            "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?
             RETURNING {INFO}"
        ))
        .bind(to_ms(at))
        .bind(name)
        .fetch_optional(self.sqlite_pool()?)
        .await
        .with_context(doing)?
        .map(|row| api_key_from_row(&row))
        .transpose()
        .with_context(doing)
    }

    /// Records that key `id` was used at `at`.
    pub async fn set_api_key_last_used(&self, id: Uuid, at: DateTime<Utc>) -> Result<()> {
        sqlx::query("UPDATE api_keys SET last_used_at = ? WHERE id = ?")
            .bind(to_ms(at))
            .bind(id.to_string())
            .execute(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: recording the use of API key {id}"))?;
        Ok(())
    }
}

impl Inspect {
    /// Every column of key `name`'s row as stored, by column name (numbers
    /// as their decimal text), to check what is kept of a key: `None` for
    /// no such key.
    pub async fn api_key_row(
        &self,
        name: &str,
    ) -> Result<Option<BTreeMap<String, Option<String>>>> {
        let doing = || format!("store: reading the stored row of API key {name}");
        let Some(row) = sqlx::query("SELECT * FROM api_keys WHERE name = ?")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .with_context(doing)?
        else {
            return Ok(None);
        };
        let mut out = BTreeMap::new();
        for (i, column) in row.columns().iter().enumerate() {
            let value = match row.try_get::<Option<String>, _>(i) {
                Ok(text) => text,
                Err(_) => row
                    .try_get::<Option<i64>, _>(i)
                    .with_context(doing)?
                    .map(|n| n.to_string()),
            };
            out.insert(column.name().to_string(), value);
        }
        Ok(Some(out))
    }
}

fn api_key_from_row(row: &SqliteRow) -> Result<ApiKeyInfo> {
    let role: String = row.try_get("role")?;
    Ok(ApiKeyInfo {
        id: parse_id(row.try_get("id")?)?,
        name: row.try_get("name")?,
        role: ApiKeyRole::parse(&role)
            .map_err(|e| Error::internal(anyhow::anyhow!("a stored role: {}", e.body.message)))?,
        prefix: row.try_get("prefix")?,
        created_at: from_ms(row.try_get("created_at")?),
        last_used_at: row.try_get::<Option<i64>, _>("last_used_at")?.map(from_ms),
        revoked_at: row.try_get::<Option<i64>, _>("revoked_at")?.map(from_ms),
    })
}
