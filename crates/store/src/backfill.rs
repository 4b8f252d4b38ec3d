//! Data that migrations leave for the engine to fill (see migration 0008's
//! `pending_backfills`): the store reads the rows waiting, computes what
//! they add up to (the tallies, with the domain's functions) or has the
//! engine compute it ([`Backfills`]: the issues' keys, the check of the
//! virtual user), and writes it, once.

use super::sql::{Conn, Sql, args};
use super::{Store, Tx};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::findings::IssueKind;
use agenteval_domain::judge::SessionForReview;
use agenteval_domain::parse_id;
use agenteval_domain::session::{ExperienceRecord, SimulatorFault};

/// What the backfills compute from the rows they read.
pub struct Backfills {
    /// The simulator faults in an ended session's transcript.
    pub simulator_faults: fn(&SessionForReview) -> Vec<SimulatorFault>,
    /// The issues an experience record reports: kind, key and text as
    /// written, each (kind, key) once.
    pub issues: fn(&ExperienceRecord) -> Vec<(IssueKind, String, String)>,
}

impl Store {
    /// Fills whatever data migrations left for the engine, in one
    /// transaction of the writer's: the run tallies, then the simulator
    /// faults of the sessions that ended before migration 0013, then the
    /// session tallies and the issue tally (after the faults: a faulty
    /// session's record is not the target's). Each is filled once, and
    /// marked done.
    pub async fn run_backfills(&self, compute: Backfills) -> Result<()> {
        self.transact(move |tx| {
            tx.backfill_run_tallies()?;
            tx.backfill_simulator_faults(compute.simulator_faults)?;
            super::session_tallies::backfill(&tx.0)?;
            tx.backfill_session_issues(compute.issues)
        })
        .await
    }
}

impl Tx<'_> {
    /// Fills the run tallies from the runs already finished, once, after
    /// migration 0008 (or when marked for it again).
    fn backfill_run_tallies(&self) -> Result<()> {
        super::tallies::backfill(&self.0)
    }

    /// Checks every session that ended before migration 0013 with `check`
    /// and stores what it finds, once.
    fn backfill_simulator_faults(
        &self,
        check: fn(&SessionForReview) -> Vec<SimulatorFault>,
    ) -> Result<()> {
        let doing =
            "store: filling the simulator faults of the sessions ended before migration 0013";
        if !backfill_pending(&self.0, "simulator_faults").context(doing)? {
            return Ok(());
        }
        self.check_unchecked_sessions(None, check).context(doing)?;
        backfill_done(&self.0, "simulator_faults").context(doing)?;
        Ok(())
    }

    /// Fills the issue tally from the sessions already closed (`issues`
    /// reads a record's), once, after migration 0009, 0011 (which changed
    /// the keys and added the phrasings) or 0013 (which leaves out the
    /// sessions with a simulator fault).
    fn backfill_session_issues(
        &self,
        issues: fn(&ExperienceRecord) -> Vec<(IssueKind, String, String)>,
    ) -> Result<()> {
        let doing = "store: filling the issue tally from the sessions already closed";
        if !backfill_pending(&self.0, "session_issue_tally").context(doing)? {
            return Ok(());
        }
        self.0
            .exec("DELETE FROM session_issue_tally", args![])
            .context(doing)?;
        // On PostgreSQL the store wrote every `simulator_faults` as a JSON
        // array (or left it NULL), so it casts without a validity check.
        let sql = Sql::dialects(
            "SELECT id, campaign_id, experience FROM exploration_sessions
             WHERE experience IS NOT NULL AND coalesce(end_reason, '') != 'simulator_error'
               AND NOT coalesce(json_valid(simulator_faults) AND json_array_length(simulator_faults) > 0, 0)
             ORDER BY ended_at, id",
            "SELECT id, campaign_id, experience FROM exploration_sessions
             WHERE experience IS NOT NULL AND coalesce(end_reason, '') != 'simulator_error'
               AND NOT coalesce(jsonb_array_length(CAST(simulator_faults AS jsonb)) > 0, FALSE)
             ORDER BY ended_at NULLS FIRST, id",
        );
        let read = || -> Result<()> {
            self.0.each(sql, args![], |row| {
                // A record that does not parse adds nothing.
                let Ok(record) = serde_json::from_str::<ExperienceRecord>(row.str("experience")?)
                else {
                    return Ok(());
                };
                let session = parse_id(row.str("id")?)?;
                let campaign = parse_id(row.str("campaign_id")?)?;
                self.add_session_issues(campaign, session, &issues(&record))
            })
        };
        read().context(doing)?;
        backfill_done(&self.0, "session_issue_tally").context(doing)?;
        Ok(())
    }
}

/// Whether the data named `name` waits to be filled by the engine after a
/// migration (see migration 0008).
pub(crate) fn backfill_pending(conn: &Conn<'_>, name: &str) -> Result<bool> {
    conn.value(
        "SELECT count(*) > 0 FROM pending_backfills WHERE name = ?",
        args![name],
    )
    .with_context(|| format!("store: reading whether {name} waits to be filled"))
}

/// Marks the data named `name` filled.
pub(crate) fn backfill_done(conn: &Conn<'_>, name: &str) -> Result<()> {
    conn.exec("DELETE FROM pending_backfills WHERE name = ?", args![name])
        .map(drop)
        .with_context(|| format!("store: marking {name} filled"))
}
