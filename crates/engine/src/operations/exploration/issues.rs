//! Issues reported in experience records: kept per session as they are
//! filed, grouped across phrasings.

use crate::domain::findings::IssueKind;
use crate::domain::ids::{CampaignId, SessionId};
use crate::domain::issue_keys::{issue_group_key, issue_words};
use crate::domain::session::ExperienceRecord;
use crate::error::Result;
use crate::i18n::Text;
use crate::store::Tx;

/// The issues an experience record reports, each (kind, key) once, with
/// its words (the built-in virtual user's as the catalogue phrases them in
/// English, anyone else's as written).
pub(crate) fn reported_issues(e: &ExperienceRecord) -> Vec<(IssueKind, String, String)> {
    let mut out: Vec<(IssueKind, String, String)> = Vec::new();
    for (kind, list) in [
        (IssueKind::Blocker, &e.blockers),
        (IssueKind::Misled, &e.misled),
    ] {
        for words in list.iter().map(issue_words) {
            let words = words.trim();
            if words.is_empty() {
                continue;
            }
            let key = issue_group_key(words);
            if !out.iter().any(|(k, key2, _)| *k == kind && *key2 == key) {
                out.push((kind, key, words.to_string()));
            }
        }
    }
    out
}

/// Blockers and misled points of an experience record, blanks left out.
pub(crate) fn issue_count(e: &ExperienceRecord) -> u32 {
    let said = |t: &&Text| !issue_words(t).trim().is_empty();
    (e.blockers.iter().filter(said).count() + e.misled.iter().filter(said).count()) as u32
}

/// Adds a closed session's issues to the campaign's issue tally, in the
/// transaction that closes it (see migration 0009).
pub(crate) fn record_issues(
    tx: &Tx<'_>,
    campaign_id: CampaignId,
    session_id: SessionId,
    record: &ExperienceRecord,
) -> Result<()> {
    tx.add_session_issues(campaign_id, session_id, &reported_issues(record))
}
