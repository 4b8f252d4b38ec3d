//! Named API keys: their hashes, roles and use (migration 0020). The key
//! itself is never stored.

use super::Store;
use super::inspect::Inspect;
use super::sql::{Row, Sql, args};
use agenteval_domain::api_key::{ApiKeyInfo, ApiKeyRole, NewApiKey};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::parse_id;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;

/// The columns a key's info is read from: never the hash.
macro_rules! info {
    () => {
        "id, name, role, prefix, created_at, last_used_at, revoked_at"
    };
}

impl Store {
    /// Stores a new key, unless one of the same name exists: whether it
    /// was stored.
    pub async fn insert_api_key(&self, key: &NewApiKey) -> Result<bool> {
        let (id, name, role, key_hash, prefix, created_at) = (
            key.id.to_string(),
            key.name.clone(),
            key.role.as_str(),
            key.key_hash.clone(),
            key.prefix.clone(),
            to_ms(key.created_at),
        );
        let inserted = self
            .write(move |c| {
                c.exec(
                    "INSERT INTO api_keys (id, name, role, key_hash, prefix, created_at)
                     VALUES (?, ?, ?, ?, ?, ?)
                     ON CONFLICT (name) DO NOTHING",
                    args![id, name, role, key_hash, prefix, created_at],
                )
            })
            .await
            .with_context(|| format!("store: inserting API key {}", key.name))?;
        Ok(inserted > 0)
    }

    /// Every key, revoked ones too, oldest first.
    pub async fn api_keys(&self) -> Result<Vec<ApiKeyInfo>> {
        self.read(|c| {
            c.rows(
                concat!("SELECT ", info!(), " FROM api_keys ORDER BY created_at, id"),
                args![],
                api_key_from_row,
            )
        })
        .await
        .context("store: reading the API keys")
    }

    /// The key whose hash is `key_hash`, revoked or not.
    pub async fn api_key_by_hash(&self, key_hash: &str) -> Result<Option<ApiKeyInfo>> {
        // On the hot path: every request with a named key.
        let key_hash = key_hash.to_string();
        self.read(move |c| {
            c.row(
                concat!("SELECT ", info!(), " FROM api_keys WHERE key_hash = ?"),
                args![key_hash],
                api_key_from_row,
            )
        })
        .await
        .context("store: looking up an API key")
    }

    /// Revokes key `name` at `at`, unless it was revoked before (its first
    /// revocation stays): the key as it now is, or `None` for no such key.
    pub async fn revoke_api_key(
        &self,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<ApiKeyInfo>> {
        let (owned, at) = (name.to_string(), to_ms(at));
        self.write(move |c| {
            c.row(
                concat!(
                    "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?
                     RETURNING ",
                    info!()
                ),
                args![at, owned],
                api_key_from_row,
            )
        })
        .await
        .with_context(|| format!("store: revoking API key {name}"))
    }

    /// Records that key `id` was used at `at`.
    pub async fn set_api_key_last_used(&self, id: Uuid, at: DateTime<Utc>) -> Result<()> {
        let at = to_ms(at);
        self.write(move |c| {
            c.exec(
                "UPDATE api_keys SET last_used_at = ? WHERE id = ?",
                args![at, id.to_string()],
            )
        })
        .await
        .with_context(|| format!("store: recording the use of API key {id}"))?;
        Ok(())
    }
}

/// Every column of `api_keys`, each read as text (numbers as their decimal
/// text) by [`Inspect::api_key_row`].
const API_KEY_COLUMNS: [&str; 8] = [
    "id",
    "name",
    "role",
    "key_hash",
    "prefix",
    "created_at",
    "revoked_at",
    "last_used_at",
];

impl Inspect {
    /// Every column of key `name`'s row as stored, by column name (numbers
    /// as their decimal text), to check what is kept of a key: `None` for
    /// no such key. Fails if the table has a column this read does not
    /// know, so that no column goes unseen.
    pub async fn api_key_row(
        &self,
        name: &str,
    ) -> Result<Option<BTreeMap<String, Option<String>>>> {
        let owned = name.to_string();
        self.read(move |c| {
            let stored: BTreeSet<String> = c
                .rows(
                    Sql::dialects(
                        "SELECT name FROM pragma_table_info('api_keys')",
                        "SELECT CAST(column_name AS TEXT) FROM information_schema.columns
                         WHERE table_schema = current_schema() AND table_name = 'api_keys'",
                    ),
                    args![],
                    |r| r.get(0),
                )?
                .into_iter()
                .collect();
            let known: BTreeSet<String> = API_KEY_COLUMNS.iter().map(|c| c.to_string()).collect();
            if stored != known {
                return Err(Error::internal(anyhow::anyhow!(
                    "the api_keys table has the columns {stored:?}, this read knows {known:?}"
                )));
            }
            c.row(
                "SELECT id, name, role, key_hash, prefix, CAST(created_at AS TEXT),
                        CAST(revoked_at AS TEXT), CAST(last_used_at AS TEXT)
                 FROM api_keys WHERE name = ?",
                args![owned],
                |r| {
                    API_KEY_COLUMNS
                        .iter()
                        .enumerate()
                        .map(|(i, column)| Ok((column.to_string(), r.get(i)?)))
                        .collect()
                },
            )
        })
        .await
        .with_context(|| format!("store: reading the stored row of API key {name}"))
    }
}

fn api_key_from_row(row: &Row<'_>) -> Result<ApiKeyInfo> {
    let role = row.str("role")?;
    Ok(ApiKeyInfo {
        id: parse_id(row.str("id")?)?,
        name: row.get("name")?,
        role: ApiKeyRole::parse(role)
            .map_err(|e| Error::internal(anyhow::anyhow!("a stored role: {}", e.body.message)))?,
        prefix: row.get("prefix")?,
        created_at: from_ms(row.get("created_at")?),
        last_used_at: row.get::<Option<i64>>("last_used_at")?.map(from_ms),
        revoked_at: row.get::<Option<i64>>("revoked_at")?.map(from_ms),
    })
}
