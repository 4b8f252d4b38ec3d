//! The report's exploration tallies (migrations 0009 and 0013: sessions by
//! what the report counts them by, judge scores per dimension, findings,
//! simulator faults per kind), kept by the store in Rust like the
//! fixed-scenario ones ([`crate::tallies`]): every write that changes a
//! session's tallied columns goes through [`retally`] (or
//! [`tally_new_session`] for an insert), which moves the session out of the
//! tallies as it was and back in as it is, in the write's own transaction.
//! What a session adds is one pure function of its stored values,
//! [`SessionTally::of`]; the backfill after migration 0019 fills the
//! tallies from every session with it. (The issue tally, whose keys the
//! engine computes, is added to as a session closes: see `findings.rs`.)
//!
//! Tallied columns: `campaign_id`, `started_at`, `status`, `end_reason`,
//! `trigger_kind`, `judge_status`, `seed_ref`, `experience`,
//! `judge_review`, `simulator_faults`. Turn counts and times change on
//! every message and are not tallied.

use crate::sql::{Arg, Conn, Row, args};
use crate::tallies::drain;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::evidence::{stored_goal_title, stored_persona_name};
use agenteval_domain::ids::SessionId;
use agenteval_domain::session::ExplorationSession;
use agenteval_domain::tally::{SessionTally, SessionTallyKey, StoredFinding, StoredSession};
use std::collections::HashMap;

/// Where a session's tallies are kept: campaign (as stored), start time
/// (ms) and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub campaign_id: String,
    pub started_at: i64,
    pub id: String,
}

/// A session's tallied columns, as stored.
#[derive(Debug, Clone, Default)]
pub(crate) struct TalliedColumns {
    pub status: String,
    pub end_reason: Option<String>,
    pub trigger: String,
    pub judge_status: String,
    pub seed_ref: Option<String>,
    pub experience: Option<String>,
    pub judge_review: Option<String>,
    pub simulator_faults: Option<String>,
}

impl TalliedColumns {
    /// What the tallies count of a new session, as stored: nothing has
    /// ended yet.
    pub fn of_new_session(session: &ExplorationSession) -> Result<Self> {
        Ok(Self {
            status: session.status.as_str().into(),
            trigger: session.trigger.as_str().into(),
            judge_status: session.judge_status.clone(),
            seed_ref: session
                .seed_ref
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
            ..Default::default()
        })
    }

    /// What the session adds to the tallies.
    pub fn tally(&self) -> SessionTally {
        SessionTally::of(&StoredSession {
            status: &self.status,
            end_reason: self.end_reason.as_deref(),
            trigger: &self.trigger,
            judge_status: &self.judge_status,
            seed_ref: self.seed_ref.as_deref(),
            experience: self.experience.as_deref(),
            judge_review: self.judge_review.as_deref(),
            simulator_faults: self.simulator_faults.as_deref(),
        })
    }
}

/// The tallied columns of every session, the select list of
/// [`tallied_from_row`], followed by the statement's own text.
macro_rules! tallied {
    ($($rest:literal)?) => {
        concat!(
            "SELECT id, campaign_id, started_at, status, end_reason, trigger_kind,
    judge_status, seed_ref, experience, judge_review, simulator_faults FROM exploration_sessions",
            $($rest)?
        )
    };
}

fn tallied_from_row(row: &Row<'_>) -> Result<(Place, SessionTally)> {
    let place = Place {
        id: row.get(0)?,
        campaign_id: row.get(1)?,
        started_at: row.get(2)?,
    };
    let tally = SessionTally::of(&StoredSession {
        status: row.str(3)?,
        end_reason: row.text(4)?,
        trigger: row.str(5)?,
        judge_status: row.str(6)?,
        seed_ref: row.text(7)?,
        experience: row.text(8)?,
        judge_review: row.text(9)?,
        simulator_faults: row.text(10)?,
    });
    Ok((place, tally))
}

/// What session `id` adds to the tallies now, and where; `None` when there
/// is no such session.
fn tallied(conn: &Conn<'_>, id: &str) -> Result<Option<(Place, SessionTally)>> {
    // Twice per write that changes a session (a hot path): the context is
    // static.
    conn.row(tallied!(" WHERE id = ?"), args![id], tallied_from_row)
        .context("store: reading a session's tallied columns")
}

/// Runs `write`, which changes tallied columns of the sessions `ids`
/// (distinct, and no other session), and moves each of them in the
/// tallies: what it added before leaves, what it adds now comes in. Write
/// and tallies are kept or undone together.
pub(crate) fn retally<T>(
    conn: &Conn<'_>,
    ids: &[SessionId],
    write: impl FnOnce() -> Result<T>,
) -> Result<T> {
    atomically(conn, || {
        let mut ids: Vec<String> = ids.iter().map(SessionId::to_string).collect();
        if conn.is_postgres() {
            // Another transaction may be changing the same sessions (two
            // workers reviewing one): their rows are locked before they are
            // read, in one order, so that what they were is what this write
            // changes, never a state another write already moved them from.
            ids.sort_unstable();
            for id in &ids {
                conn.row(
                    "SELECT id FROM exploration_sessions WHERE id = ? FOR NO KEY UPDATE",
                    args![id],
                    |_| Ok(()),
                )
                .context("store: locking a session to change its tallies")?;
            }
        }
        let before = ids
            .iter()
            .map(|id| tallied(conn, id))
            .collect::<Result<Vec<_>>>()?;
        let written = write()?;
        let mut tallies = SessionTallies::default();
        for (id, before) in ids.iter().zip(before) {
            let after = tallied(conn, id)?;
            tallies.change(before.as_ref().map(pair), after.as_ref().map(pair));
        }
        tallies.flush(conn)?;
        Ok(written)
    })
}

/// Runs `insert`, which stores a new session at `place` with `columns`
/// (known to the caller, so not read back), and adds it to the tallies.
pub(crate) fn tally_new_session(
    conn: &Conn<'_>,
    place: &Place,
    columns: &TalliedColumns,
    insert: impl FnOnce() -> Result<()>,
) -> Result<()> {
    atomically(conn, || {
        insert()?;
        let mut tallies = SessionTallies::default();
        tallies.change(None, Some((place, &columns.tally())));
        tallies.flush(conn)
    })
}

/// The columns of session tally key `k` (after its campaign), in the
/// order of the table's key.
pub(crate) fn key_args(k: &SessionTallyKey) -> [Arg<'_>; 12] {
    [
        Arg::from(&k.status),
        Arg::from(&k.end_reason),
        Arg::from(&k.trigger),
        Arg::from(&k.judge_status),
        Arg::from(k.persona_id.is_some()),
        Arg::from(k.persona_id.as_deref().unwrap_or_default()),
        Arg::from(&k.goal_id),
        Arg::from(k.has_experience),
        Arg::from(k.record),
        Arg::from(k.goal_achieved),
        Arg::from(&k.emotion),
        Arg::from(k.simulator_fault),
    ]
}

fn pair((place, tally): &(Place, SessionTally)) -> (&Place, &SessionTally) {
    (place, tally)
}

/// Runs `work` in a savepoint: kept on `Ok`, undone on `Err`, so that a
/// write never lands without its tallies, whatever its caller does with the
/// error. (On PostgreSQL, undoing to the savepoint also lets the
/// transaction go on after a statement of `work` failed.)
fn atomically<T>(conn: &Conn<'_>, work: impl FnOnce() -> Result<T>) -> Result<T> {
    conn.batch("SAVEPOINT retally")
        .context("store: opening a savepoint for a session's tallies")?;
    let result = work();
    let end = match result {
        Ok(_) => "RELEASE SAVEPOINT retally",
        Err(_) => "ROLLBACK TO SAVEPOINT retally; RELEASE SAVEPOINT retally",
    };
    match conn.batch(end) {
        Ok(()) => result,
        // The transaction itself ended (its owner fails and says why).
        Err(_) if matches!(conn, Conn::Sqlite(c) if c.is_autocommit()) => result,
        Err(e) => Err(e.context("store: closing the savepoint of a session's tallies")),
    }
}

/// Differences to the session tallies being added up, keyed as the tables
/// are, then written once per row they touch ([`SessionTallies::flush`]).
#[derive(Debug, Default)]
pub(crate) struct SessionTallies {
    /// (campaign, key) -> (sessions, issues).
    sessions: HashMap<(String, SessionTallyKey), (i64, i64)>,
    /// (campaign, dimension) -> (sum of scores, count).
    scores: HashMap<(String, String), (f64, i64)>,
    /// (campaign, fault kind) -> (sessions, faults).
    faults: HashMap<(String, String), (i64, i64)>,
    /// (campaign, judge) -> sessions.
    judges: HashMap<(String, String), i64>,
    /// campaign -> sessions its judge scored.
    scored: HashMap<String, i64>,
    /// Sessions whose findings leave.
    findings_out: Vec<Place>,
    /// Findings that come in, with their session.
    findings_in: Vec<(Place, StoredFinding)>,
}

impl SessionTallies {
    /// Moves a session from what it added (`before`, `None` when it did
    /// not exist) to what it adds (`after`, `None` when it is gone), part
    /// by part: a part that did not change is not touched.
    pub fn change(
        &mut self,
        before: Option<(&Place, &SessionTally)>,
        after: Option<(&Place, &SessionTally)>,
    ) {
        let unchanged = |part: fn(&SessionTally, &SessionTally) -> bool| match (before, after) {
            (Some((pb, b)), Some((pa, a))) => pb == pa && part(b, a),
            _ => false,
        };
        let counts = !unchanged(|b, a| b.key == a.key && b.issues == a.issues);
        let scores = !unchanged(|b, a| b.scores == a.scores);
        let faults = !unchanged(|b, a| b.faults == a.faults);
        let findings = !unchanged(|b, a| b.findings == a.findings);
        let judges = !unchanged(|b, a| b.judge == a.judge);
        let scored = !unchanged(|b, a| b.scored == a.scored);
        for (side, sign) in [(before, -1), (after, 1)] {
            let Some((place, t)) = side else { continue };
            let campaign = &place.campaign_id;
            if counts {
                let n = self
                    .sessions
                    .entry((campaign.clone(), t.key.clone()))
                    .or_default();
                n.0 += sign;
                n.1 += sign * i64::from(t.issues);
            }
            if scores {
                for (name, score) in &t.scores {
                    let d = self
                        .scores
                        .entry((campaign.clone(), name.clone()))
                        .or_default();
                    d.0 += sign as f64 * score;
                    d.1 += sign;
                }
            }
            if faults {
                for (kind, n) in &t.faults {
                    let f = self
                        .faults
                        .entry((campaign.clone(), kind.clone()))
                        .or_default();
                    f.0 += sign;
                    f.1 += sign * i64::from(*n);
                }
            }
            if let Some(judge) = t.judge.as_ref().filter(|_| judges) {
                *self
                    .judges
                    .entry((campaign.clone(), judge.clone()))
                    .or_default() += sign;
            }
            if scored && t.scored {
                *self.scored.entry(campaign.clone()).or_default() += sign;
            }
            if findings && !t.findings.is_empty() {
                match sign {
                    -1 => self.findings_out.push(place.clone()),
                    _ => self
                        .findings_in
                        .extend(t.findings.iter().map(|f| (place.clone(), f.clone()))),
                }
            }
        }
    }

    /// Adds every session to the tallies (which are empty), for the
    /// backfill and for a recount.
    pub fn recount(conn: &Conn<'_>) -> Result<Self> {
        let mut tallies = SessionTallies::default();
        conn.each(tallied!(), args![], |row| {
            let (place, tally) = tallied_from_row(row)?;
            tallies.change(None, Some((&place, &tally)));
            Ok(())
        })
        .context("store: recounting the session tallies from the sessions")?;
        Ok(tallies)
    }

    /// Writes the differences added up, and forgets them.
    pub fn flush(&mut self, conn: &Conn<'_>) -> Result<()> {
        // As each session changes (a hot path): the contexts are static.
        // In key order on PostgreSQL (see `tallies::drain`).
        let ordered = conn.is_postgres();
        drain(
            &mut self.sessions,
            ordered,
            |(campaign, k), (sessions, issues)| {
                if (sessions, issues) == (0, 0) {
                    return Ok(0);
                }
                conn.exec(
                "INSERT INTO session_tally (campaign_id, status, end_reason, trigger_kind, judge_status,
                     seeded, persona_id, goal_id, has_experience, record, goal_achieved, emotion,
                     simulator_fault, sessions, issues)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT (campaign_id, status, end_reason, trigger_kind, judge_status, seeded,
                     persona_id, goal_id, has_experience, record, goal_achieved, emotion, simulator_fault)
                 DO UPDATE SET sessions = session_tally.sessions + excluded.sessions,
                     issues = session_tally.issues + excluded.issues",
                &[
                    [Arg::from(&campaign)].as_slice(),
                    &key_args(&k),
                    args![sessions, issues],
                ]
                .concat(),
            )
            .context("store: adding to the session tally")
            },
        )?;
        drain(
            &mut self.scores,
            ordered,
            |(campaign, name), (sum, count)| {
                if (sum, count) == (0.0, 0) {
                    return Ok(0);
                }
                conn.exec(
                    "INSERT INTO session_dimension_tally (campaign_id, name, score_sum, count)
                 VALUES (?, ?, ?, ?)
                 ON CONFLICT (campaign_id, name)
                 DO UPDATE SET score_sum = session_dimension_tally.score_sum + excluded.score_sum,
                     count = session_dimension_tally.count + excluded.count",
                    args![&campaign, &name, sum, count],
                )
                .context("store: adding to the judge score tally")
            },
        )?;
        drain(
            &mut self.faults,
            ordered,
            |(campaign, kind), (sessions, faults)| {
                if (sessions, faults) == (0, 0) {
                    return Ok(0);
                }
                conn.exec(
                "INSERT INTO session_fault_tally (campaign_id, kind, sessions, faults) VALUES (?, ?, ?, ?)
                 ON CONFLICT (campaign_id, kind)
                 DO UPDATE SET sessions = session_fault_tally.sessions + excluded.sessions,
                     faults = session_fault_tally.faults + excluded.faults",
                args![&campaign, &kind, sessions, faults],
            )
            .context("store: adding to the simulator fault tally")
            },
        )?;
        drain(&mut self.judges, ordered, |(campaign, judge), sessions| {
            if sessions == 0 {
                return Ok(0);
            }
            conn.exec(
                "INSERT INTO session_judge_tally (campaign_id, judge, sessions) VALUES (?, ?, ?)
                 ON CONFLICT (campaign_id, judge)
                 DO UPDATE SET sessions = session_judge_tally.sessions + excluded.sessions",
                args![&campaign, &judge, sessions],
            )
            .context("store: adding to the judge tally")
        })?;
        drain(&mut self.scored, ordered, |campaign, sessions| {
            if sessions == 0 {
                return Ok(0);
            }
            conn.exec(
                "INSERT INTO session_scored_tally (campaign_id, sessions) VALUES (?, ?)
                 ON CONFLICT (campaign_id)
                 DO UPDATE SET sessions = session_scored_tally.sessions + excluded.sessions",
                args![&campaign, sessions],
            )
            .context("store: adding to the scored session tally")
        })?;
        for p in self.findings_out.drain(..) {
            conn.exec(
                "DELETE FROM session_findings WHERE campaign_id = ? AND started_at = ? AND session_id = ?",
                args![&p.campaign_id, p.started_at, &p.id],
            )
            .context("store: removing a session's judge findings")?;
        }
        // Each finding keeps its session's name (migration 0031), read once
        // per session.
        let mut named: Option<(String, SessionNamed)> = None;
        for (p, f) in self.findings_in.drain(..) {
            let name = match &named {
                Some((id, name)) if *id == p.id => name,
                _ => &named.insert((p.id.clone(), session_named(conn, &p.id)?)).1,
            };
            conn.exec(
                "INSERT INTO session_findings (campaign_id, started_at, session_id, seq, severity,
                     dimension, text, evidence, turn, step, persona_name, goal_title, seed_ordinal)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                args![
                    &p.campaign_id,
                    p.started_at,
                    &p.id,
                    f.seq,
                    &f.severity,
                    &f.dimension,
                    &f.text,
                    &f.evidence,
                    f.turn,
                    f.step,
                    &name.persona,
                    &name.goal,
                    name.ordinal
                ],
            )
            .context("store: storing a session's judge findings")?;
        }
        Ok(())
    }
}

/// How a session is named where its findings are cited: its persona's
/// name, its goal's title and its place among the sessions of the two
/// (`None` each for a session not found).
#[derive(Debug, Default)]
struct SessionNamed {
    persona: Option<String>,
    goal: Option<String>,
    ordinal: Option<i64>,
}

fn session_named(conn: &Conn<'_>, id: &str) -> Result<SessionNamed> {
    Ok(conn
        .row(
            "SELECT persona, goal, seed_ordinal FROM exploration_sessions WHERE id = ?",
            args![id],
            |r| {
                Ok(SessionNamed {
                    persona: Some(stored_persona_name(r.str(0)?)),
                    goal: Some(stored_goal_title(r.str(1)?)),
                    ordinal: r.get(2)?,
                })
            },
        )
        .context("store: naming a session with its judge findings")?
        .unwrap_or_default())
}

/// Fills the session tallies from every session, once, when a database is
/// first opened after migration 0019 (which moved them from SQL triggers to
/// the store), or when marked for it again.
pub(crate) fn backfill(conn: &Conn<'_>) -> Result<()> {
    let doing = "store: filling the session tallies from the sessions";
    if !crate::backfill::backfill_pending(conn, "session_tallies")? {
        return Ok(());
    }
    conn.batch(
        "DELETE FROM session_tally; DELETE FROM session_dimension_tally;
         DELETE FROM session_fault_tally; DELETE FROM session_findings;
         DELETE FROM session_judge_tally; DELETE FROM session_scored_tally;",
    )
    .context(doing)?;
    SessionTallies::recount(conn)?.flush(conn).context(doing)?;
    crate::backfill::backfill_done(conn, "session_tallies")
}

#[cfg(test)]
mod tests;
