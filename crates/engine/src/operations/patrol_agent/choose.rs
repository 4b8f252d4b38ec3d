//! Which cell the patrol agent explores next: the goal that failed before,
//! else the persona that tried it least, else the least explored cell.

use super::*;

/// The seed cell to explore next and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub persona_id: String,
    pub goal_id: String,
    /// `None`: the seed as it is; else the derivation.
    pub variant: Option<VariantKind>,
    pub why: String,
}

/// Chooses what to explore: an uncovered persona x goal cell first; then a
/// goal that failed before, retried by the persona that tried it least with
/// another follow-up strategy; else the least explored cell with the goal
/// re-phrased.
pub fn choose_cell(c: &PatrolCampaign) -> Option<Pick> {
    if let Some(cell) = c.uncovered.first() {
        return Some(Pick {
            persona_id: cell.persona_id.clone(),
            goal_id: cell.goal_id.clone(),
            variant: None,
            why: "persona x goal cell not covered yet".into(),
        });
    }
    let least = |cells: Vec<&CoverageState>| {
        cells
            .into_iter()
            .min_by(|a, b| a.sessions.cmp(&b.sessions))
            .cloned()
    };
    let mut failed: Vec<_> = c.failed_goals.iter().collect();
    // Most failures relative to attempts first; ties by id for stability.
    failed.sort_by(|a, b| {
        (u64::from(b.failures) * u64::from(a.attempts.max(1)))
            .cmp(&(u64::from(a.failures) * u64::from(b.attempts.max(1))))
            .then_with(|| a.goal_id.cmp(&b.goal_id))
    });
    for goal in failed {
        let cells = c
            .coverage
            .iter()
            .filter(|s| s.goal_id == goal.goal_id)
            .collect();
        if let Some(cell) = least(cells) {
            return Some(Pick {
                persona_id: cell.persona_id,
                goal_id: cell.goal_id,
                variant: Some(VariantKind::OtherFollowUpStrategy),
                why: format!(
                    "goal {} failed {} of {} times before",
                    goal.goal_id, goal.failures, goal.attempts
                ),
            });
        }
    }
    least(c.coverage.iter().collect()).map(|cell| Pick {
        persona_id: cell.persona_id,
        goal_id: cell.goal_id,
        variant: Some(VariantKind::RephrasedGoal),
        why: "every cell covered: the least explored one, re-phrased".into(),
    })
}
