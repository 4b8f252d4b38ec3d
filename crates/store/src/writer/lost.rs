//! Runs whose turn could not be stored: their verdict becomes `error`.

use super::{Committed, TURN_LOST, Write};
use agenteval_domain::run::Verdict;
use std::collections::HashSet;
use uuid::Uuid;

/// Runs with a turn that could not be stored, until their verdict comes.
#[derive(Default)]
pub(super) struct LostTurns(pub(super) HashSet<Uuid>);

impl LostTurns {
    /// Turns `write` into an `error` verdict if it is the verdict of a run
    /// that lost a turn.
    pub(super) fn downgrade(&mut self, write: &mut Write) -> Committed {
        match write {
            Write::Finish(f) if self.0.remove(&f.id) => {
                f.verdict = Verdict::Error;
                // Read what was stored instead.
                f.outcome.latencies = None;
                f.error_reason = Some(TURN_LOST.into());
                Committed::TurnsMissing
            }
            _ => Committed::AsQueued,
        }
    }

    pub(super) fn failed(&mut self, write: &Write) {
        if let Write::Turn(t) = write {
            self.0.insert(t.run_id.into());
        }
    }
}
