//! Issues reported in experience records: kept per session as they are
//! filed, grouped across phrasings.

use super::*;

/// How many sessions an issue lists; its count has them all.
pub const ISSUE_SESSIONS_LISTED: usize = 50;
/// How many phrasings an issue lists.
pub const ISSUE_TEXTS_LISTED: usize = 20;

/// The issues an experience record reports, each (kind, key) once, with
/// the text as written.
pub(super) fn reported_issues(e: &ExperienceRecord) -> Vec<(IssueKind, String, &str)> {
    let mut out: Vec<(IssueKind, String, &str)> = Vec::new();
    for (kind, list) in [
        (IssueKind::Blocker, &e.blockers),
        (IssueKind::Misled, &e.misled),
    ] {
        for text in list.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            let key = issue_group_key(text);
            if !out.iter().any(|(k, key2, _)| *k == kind && *key2 == key) {
                out.push((kind, key, text));
            }
        }
    }
    out
}

/// Blockers and misled points of an experience record, blanks left out.
pub(super) fn issue_count(e: &ExperienceRecord) -> u32 {
    let blank = |t: &&String| t.trim().is_empty();
    (e.blockers.iter().filter(|t| !blank(t)).count()
        + e.misled.iter().filter(|t| !blank(t)).count()) as u32
}

/// Adds a closed session's issues to the campaign's issue tally, in the
/// transaction that closes it (see migration 0009).
pub(crate) fn record_issues(
    conn: &rusqlite::Connection,
    campaign_id: Uuid,
    session_id: Uuid,
    record: &ExperienceRecord,
) -> rusqlite::Result<()> {
    let mut upsert = conn.prepare_cached(
        "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids, texts)
         VALUES (?1, ?2, ?3, ?4, 1, json_array(?5), json_array(?4))
         ON CONFLICT DO UPDATE SET sessions = sessions + 1,
             session_ids = CASE WHEN json_array_length(session_ids) < ?6
                                THEN json_insert(session_ids, '$[#]', ?5) ELSE session_ids END,
             texts = CASE WHEN json_array_length(texts) < ?7
                               AND NOT EXISTS (SELECT 1 FROM json_each(texts) WHERE value = ?4)
                          THEN json_insert(texts, '$[#]', ?4) ELSE texts END",
    )?;
    for (kind, key, text) in reported_issues(record) {
        upsert.execute(rusqlite::params![
            campaign_id.to_string(),
            kind.as_str(),
            key,
            text,
            session_id.to_string(),
            ISSUE_SESSIONS_LISTED as i64,
            ISSUE_TEXTS_LISTED as i64,
        ])?;
    }
    Ok(())
}

/// Fills the issue tally from the sessions already closed, once, when a
/// database is first opened after migration 0009, 0011 (which changed the
/// keys and added the phrasings) or 0013 (which leaves out the sessions
/// with a simulator fault).
pub(crate) fn backfill_issues(conn: &rusqlite::Connection) -> Result<()> {
    if !crate::store::backfill_pending(conn, "session_issue_tally")? {
        return Ok(());
    }
    conn.execute("DELETE FROM session_issue_tally", [])?;
    let mut statement = conn.prepare(
        "SELECT id, campaign_id, experience FROM exploration_sessions
         WHERE experience IS NOT NULL AND coalesce(end_reason, '') != 'simulator_error'
           AND NOT coalesce(json_valid(simulator_faults) AND json_array_length(simulator_faults) > 0, 0)
         ORDER BY ended_at, id",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let Ok(record) =
            serde_json::from_str::<ExperienceRecord>(text(row, "experience")?.unwrap_or_default())
        else {
            continue;
        };
        let session = parse_id(text(row, "id")?.unwrap_or_default())?;
        let campaign = parse_id(text(row, "campaign_id")?.unwrap_or_default())?;
        record_issues(conn, campaign, session, &record)?;
    }
    crate::store::backfill_done(conn, "session_issue_tally")?;
    Ok(())
}
