//! Conversations imported from production traces (migrations 0022 and
//! 0023): one row a conversation, its summary in columns for the list,
//! what its users said for the coverage grid, the conversation itself as
//! JSON. An import reads and writes in one transaction ([`Tx`]).

use super::arg::Arg;
use super::sql::Conn;
use super::sql::{Row, args};
use super::{Store, Tx};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::parse_id;
use agenteval_domain::traces::{
    ImportedConversation, ImportedConversationSummary, Said, TraceConversation,
};
use serde::{Deserialize, Serialize};

/// What `body` holds: the conversation but its columns.
#[derive(Serialize, Deserialize)]
struct Body {
    trace_ids: Vec<String>,
    messages: Vec<agenteval_domain::chat::ChatMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tools: Vec<agenteval_domain::chat::ToolSpec>,
}

macro_rules! summary {
    () => {
        "id, key, target_id, source, imported_at, started_at, model, user_turns, messages, traces, first_user"
    };
}

/// Which imported conversations a list shows.
#[derive(Debug, Clone, Default)]
pub struct TraceFilter {
    pub target_id: Option<agenteval_domain::ids::TargetId>,
    /// Words the conversation's messages contain (case-insensitive).
    pub text: Option<String>,
    pub limit: u32,
    pub offset: u32,
}

impl Tx<'_> {
    /// Makes the imports take turns until the end of the transaction, so
    /// that two of them extending one conversation cannot lose each
    /// other's spans: on PostgreSQL the table is locked against other
    /// writers (readers go on); on SQLite the writer thread runs one
    /// transaction at a time already.
    pub fn lock_trace_conversations(&self) -> Result<()> {
        if self.0.is_postgres() {
            self.0
                .batch("LOCK TABLE trace_conversations IN SHARE ROW EXCLUSIVE MODE")
                .context("store: locking the imported conversations for an import")?;
        }
        Ok(())
    }

    /// Stores `c`, or replaces the conversation of the same key (a later
    /// import extended it; its id and first import time stay).
    pub fn upsert_trace_conversation(&self, c: &ImportedConversation) -> Result<()> {
        upsert(&self.0, c).with_context(|| {
            format!(
                "store: keeping imported conversation {}",
                c.conversation.key
            )
        })
    }

    /// The imported conversation of conversation key `key`.
    pub fn trace_conversation_by_key(&self, key: &str) -> Result<Option<ImportedConversation>> {
        self.0
            .row(
                concat!(
                    "SELECT ",
                    summary!(),
                    ", updated_at, body FROM trace_conversations WHERE key = ?"
                ),
                args![key.to_string()],
                conversation_from_row,
            )
            .with_context(|| format!("store: reading imported conversation {key}"))
    }
}

fn upsert(conn: &Conn<'_>, c: &ImportedConversation) -> Result<()> {
    let s = c.summary();
    let body = serde_json::to_string(&Body {
        trace_ids: c.conversation.trace_ids.clone(),
        messages: c.conversation.messages.clone(),
        tools: c.conversation.tools.clone(),
    })
    .map_err(Error::internal)?;
    let counts = (
        i64::from(s.user_turns),
        i64::from(s.messages),
        i64::from(s.traces),
    );
    conn.exec(
        "INSERT INTO trace_conversations (id, key, target_id, source, imported_at, updated_at,
             started_at, model, user_turns, messages, traces, first_user, said, body)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET target_id = coalesce(excluded.target_id, trace_conversations.target_id),
             updated_at = excluded.updated_at, started_at = excluded.started_at,
             model = excluded.model, user_turns = excluded.user_turns,
             messages = excluded.messages, traces = excluded.traces,
             first_user = excluded.first_user, said = excluded.said, body = excluded.body",
        args![
            c.id.to_string(),
            s.key,
            c.target_id.map(|t| t.to_string()),
            c.source.clone(),
            to_ms(c.imported_at),
            to_ms(c.updated_at),
            s.started_at,
            s.model,
            counts.0,
            counts.1,
            counts.2,
            s.first_user,
            c.conversation.said(),
            body
        ],
    )?;
    Ok(())
}

impl Store {
    /// Imported conversation `id`.
    pub async fn trace_conversation(&self, id: uuid::Uuid) -> Result<Option<ImportedConversation>> {
        self.read(move |c| {
            c.row(
                concat!(
                    "SELECT ",
                    summary!(),
                    ", updated_at, body FROM trace_conversations WHERE id = ?"
                ),
                args![id.to_string()],
                conversation_from_row,
            )
        })
        .await
        .with_context(|| format!("store: reading imported conversation {id}"))
    }

    /// What the users said in the newest `limit` imported conversations
    /// of target `target_id`.
    pub async fn target_trace_said(
        &self,
        target_id: agenteval_domain::ids::TargetId,
        limit: u32,
    ) -> Result<Vec<Said>> {
        let (target, limit) = (target_id.to_string(), i64::from(limit));
        self.read(move |c| {
            c.rows(
                "SELECT said, user_turns FROM trace_conversations
                 WHERE target_id = ? ORDER BY imported_at DESC, id LIMIT ?",
                args![target, limit],
                |row| {
                    Ok(Said {
                        text: row.get("said")?,
                        turns: row.get::<i64>("user_turns")?.max(0) as usize,
                    })
                },
            )
        })
        .await
        .with_context(|| format!("store: reading what production said to target {target_id}"))
    }

    /// A page of the imported conversations `filter` selects, newest
    /// import first, and how many it selects in all.
    pub async fn trace_conversations(
        &self,
        filter: TraceFilter,
    ) -> Result<(Vec<ImportedConversationSummary>, u64)> {
        self.read(move |c| {
            let target = filter.target_id.map(|t| t.to_string());
            let text = filter
                .text
                .filter(|t| !t.trim().is_empty())
                .map(|t| format!("%{}%", t.trim().to_lowercase()));
            let (count, page) = list_queries(target.is_some(), text.is_some());
            let mut args: Vec<Arg<'_>> = Vec::new();
            args.extend(target.map(Arg::from));
            args.extend(text.map(Arg::from));
            let total: i64 = c.value(count, &args)?;
            args.extend([
                Arg::from(i64::from(filter.limit)),
                Arg::from(i64::from(filter.offset)),
            ]);
            let rows = c.rows(page, &args, summary_from_row)?;
            Ok((rows, total.max(0) as u64))
        })
        .await
        .context("store: listing the imported conversations")
    }
}

/// The count and the page of a list, by which filters it has (a target,
/// words). Each condition is in the statement only when it is given, so
/// that the count of every conversation, or of a target's, is read from
/// an index: an exporter's traffic makes hundreds of thousands of rows,
/// and a condition that is always true still reads every row. A search
/// for words reads every conversation all the same.
fn list_queries(target: bool, text: bool) -> (&'static str, &'static str) {
    macro_rules! list {
        ($where:literal) => {
            (
                concat!("SELECT count(*) FROM trace_conversations ", $where),
                concat!(
                    "SELECT ",
                    summary!(),
                    " FROM trace_conversations ",
                    $where,
                    " ORDER BY imported_at DESC, id LIMIT ? OFFSET ?"
                ),
            )
        };
    }
    match (target, text) {
        (false, false) => list!(""),
        (true, false) => list!("WHERE target_id = ?"),
        (false, true) => list!("WHERE lower(body) LIKE ?"),
        (true, true) => list!("WHERE target_id = ? AND lower(body) LIKE ?"),
    }
}

fn summary_from_row(row: &Row<'_>) -> Result<ImportedConversationSummary> {
    let count = |name: &str| -> Result<u32> {
        Ok(row.get::<i64>(name)?.clamp(0, i64::from(u32::MAX)) as u32)
    };
    Ok(ImportedConversationSummary {
        id: row.uuid("id")?,
        key: row.get("key")?,
        target_id: row.text("target_id")?.map(parse_id).transpose()?,
        source: row.get("source")?,
        model: row.get("model")?,
        started_at: row.get("started_at")?,
        imported_at: from_ms(row.get("imported_at")?),
        user_turns: count("user_turns")?,
        messages: count("messages")?,
        traces: count("traces")?,
        first_user: row.get("first_user")?,
    })
}

fn conversation_from_row(row: &Row<'_>) -> Result<ImportedConversation> {
    let s = summary_from_row(row)?;
    let body: Body = serde_json::from_str(row.str("body")?)
        .map_err(|e| Error::internal(anyhow::anyhow!("a stored imported conversation: {e}")))?;
    Ok(ImportedConversation {
        id: s.id,
        target_id: s.target_id,
        source: s.source,
        imported_at: s.imported_at,
        updated_at: from_ms(row.get("updated_at")?),
        conversation: TraceConversation {
            key: s.key,
            trace_ids: body.trace_ids,
            model: s.model,
            started_at: s.started_at,
            messages: body.messages,
            tools: body.tools,
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use crate::upgrade::database_up_to;
    use agenteval_domain::ids::TargetId;

    /// Conversations imported before migration 0023 get what their users
    /// said, a turn a line, and are placed by it.
    #[tokio::test]
    async fn conversations_kept_before_0023_get_what_their_users_said() {
        let dir = tempfile::tempdir().unwrap();
        let pool = database_up_to(22, dir.path()).await;
        let target = uuid::Uuid::now_v7();
        let body = serde_json::json!({"trace_ids": ["t1"], "messages": [
            {"role": "system", "content": "You are the shop."},
            {"role": "user", "content": "退款什么时候到账？"},
            {"role": "assistant", "content": "请问订单号？"},
            {"role": "user", "content": "A1024"},
        ]});
        sqlx::query(
            "INSERT INTO targets (id, name, channel, created_at, updated_at) VALUES (?1, 'demo', '{}', 0, 0);
             INSERT INTO trace_conversations (id, key, target_id, source, imported_at, updated_at,
                 user_turns, messages, traces, first_user, body)
             VALUES (?2, 'conv-1', ?1, 'old.jsonl', 1, 1, 2, 4, 1, '退款什么时候到账？', ?3)",
        )
        .bind(target.to_string())
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(body.to_string())
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;

        let store = Store::open(dir.path(), Default::default()).await.unwrap();
        let said = store
            .target_trace_said(TargetId::from(target), 10)
            .await
            .unwrap();
        assert_eq!(said.len(), 1);
        assert_eq!(said[0].text, "退款什么时候到账？\nA1024");
        assert_eq!(said[0].turns, 2);
    }
}
