//! Fixed runs in the blind review queue: a run whose checks include a
//! rubric is offered with its conversation and rubric texts, never the
//! judge's score; a person rates each rubric check on the judge's own 1-5
//! scale, then sees both. Their agreement is the criterion [`RUBRIC`].

use super::{BlindTurn, SCALE, queue_limit};
use crate::checks::CheckResult;
use crate::domain::ids::{CampaignId, RunId};
use crate::error::{Error, ErrorCode, Result};
use crate::judge::JudgeMethod;
use crate::platform::Platform;
use crate::scenario::Check;
use crate::store::run_labels::RubricRun;
use chrono::{DateTime, Utc};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// The calibration criterion of the judge's rubric scores in fixed runs.
pub const RUBRIC: &str = "rubric";

/// One rubric check of a queued run: what the person rates, without the
/// judge's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindRubric {
    /// Position of the check among the run's check results: what a label
    /// names.
    pub check_index: u32,
    /// 0-based turn whose reply the rubric is about.
    pub turn: u32,
    pub rubric: String,
}

/// A fixed run waiting for a person's label: its conversation and the
/// rubrics of its rubric checks, never the judge's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindRunItem {
    pub run_id: RunId,
    pub scenario_id: String,
    pub scenario_title: String,
    pub turns: Vec<BlindTurn>,
    pub rubrics: Vec<BlindRubric>,
}

/// The next unlabelled fixed runs with rubric checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindRunQueue {
    pub campaign_id: CampaignId,
    pub items: Vec<BlindRunItem>,
    /// Runs with judged rubric checks not labelled yet, `items` included.
    pub remaining: u32,
    /// Runs of the campaign labelled so far.
    pub labelled: u32,
}

/// A person's score of one rubric check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RubricScore {
    pub check_index: u32,
    /// 1 (does not meet the rubric) to 5 (fully meets it).
    #[schema(minimum = 1, maximum = 5)]
    pub score: u8,
}

/// A person's blind label of a run: a score for each of its rubric checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SubmitRunLabel {
    pub run_id: RunId,
    /// One score per rubric check of the queue item, by its check_index.
    #[schema(min_items = 1)]
    pub scores: Vec<RubricScore>,
    /// Who labelled (free text, optional).
    #[serde(default)]
    pub reviewer: String,
}

pub use crate::domain::calibration::RunLabel;

/// One rubric check once labelled: the person's score and the judge's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RevealedRubric {
    pub check_index: u32,
    pub turn: u32,
    pub rubric: String,
    /// The person's score.
    pub mine: u8,
    /// The judge's score.
    pub judge: u8,
    /// The judge's reason, as the check's detail gives it.
    pub reason: crate::i18n::Text,
    pub judged_by: JudgeMethod,
}

/// What a run label reveals once it is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunLabelRevealed {
    pub run_id: RunId,
    pub campaign_id: CampaignId,
    pub reviewer: String,
    pub created_at: DateTime<Utc>,
    pub checks: Vec<RevealedRubric>,
}

/// A judged rubric check of a run, with everything the queue and the
/// reveal need.
struct JudgedRubric {
    check_index: u32,
    turn: u32,
    rubric: String,
    score: u8,
    detail: crate::i18n::Text,
    judged_by: JudgeMethod,
}

/// The score in a detail written before check results carried it
/// ("... scored 4/5 (needs 3): ...").
static SCORED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"scored ([1-5])/5").expect("static regex"));

/// The judge's score of a rubric check result and who gave it.
fn judge_score(c: &CheckResult) -> Option<(u8, JudgeMethod)> {
    if let Some(score) = c.score {
        return Some((score, c.judged_by.unwrap_or(JudgeMethod::Heuristic)));
    }
    let detail = c.detail.render(crate::i18n::Lang::En);
    let score = SCORED.captures(&detail)?[1].parse().ok()?;
    let method = if detail.starts_with("judge scored") {
        JudgeMethod::Model
    } else {
        JudgeMethod::Heuristic
    };
    Some((score, method))
}

/// The rubric texts of a scenario, per turn, in the order of the turn's
/// checks: of the loaded scenario the runs execute, else of its stored
/// definition (the pack may be gone since).
fn rubric_texts(platform: &Platform, run: &RubricRun) -> Vec<Vec<String>> {
    let def = match platform.scenarios.get(&run.scenario_id) {
        Some(loaded) => serde_json::to_value(&*loaded).ok(),
        None => run
            .scenario_definition
            .as_deref()
            .and_then(|d| serde_json::from_str(d).ok()),
    };
    let Some(def) = def else {
        return Vec::new();
    };
    let turns = def["turns"].as_array().cloned().unwrap_or_default();
    turns
        .iter()
        .map(|t| {
            t["checks"]
                .as_array()
                .map(|checks| {
                    checks
                        .iter()
                        .filter(|c| c["type"] == RUBRIC)
                        .map(|c| c["rubric"].as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The judged rubric checks of a run: its rubric check results paired
/// with the rubrics of its scenario, in order. Empty when none was scored
/// or a rubric's text is no longer known.
fn judged_rubrics(platform: &Platform, run: &RubricRun) -> Vec<JudgedRubric> {
    let results: Vec<CheckResult> = serde_json::from_str(&run.check_results).unwrap_or_default();
    let texts = rubric_texts(platform, run);
    let mut nth_in_turn = std::collections::HashMap::<u32, usize>::new();
    let mut out = Vec::new();
    for (i, c) in results.iter().enumerate().filter(|(_, c)| c.kind == RUBRIC) {
        let n = nth_in_turn.entry(c.turn).or_default();
        let text = texts.get(c.turn as usize).and_then(|t| t.get(*n)).cloned();
        *n += 1;
        let (Some(rubric), Some((score, judged_by))) = (text, judge_score(c)) else {
            return Vec::new();
        };
        out.push(JudgedRubric {
            check_index: i as u32,
            turn: c.turn,
            rubric,
            score,
            detail: c.detail.clone(),
            judged_by,
        });
    }
    out
}

/// (judge, person) score pairs of a campaign's rubric labels.
pub(super) async fn rubric_pairs(
    platform: &Platform,
    campaign_id: CampaignId,
) -> Result<Vec<(u8, u8)>> {
    let labelled = platform.store.run_labels_with_checks(campaign_id).await?;
    Ok(labelled
        .iter()
        .filter_map(|(label, checks)| {
            let results: Vec<CheckResult> = serde_json::from_str(checks).ok()?;
            let (judge, _) = judge_score(results.get(label.check_index as usize)?)?;
            Some((judge, label.score))
        })
        .collect())
}

/// Runs with judged rubric checks that nobody labelled, with those checks.
async fn unlabelled(
    platform: &Platform,
    campaign_id: CampaignId,
) -> Result<Vec<(RubricRun, Vec<JudgedRubric>)>> {
    Ok(platform
        .store
        .unlabelled_rubric_runs(campaign_id)
        .await?
        .into_iter()
        .map(|run| {
            let judged = judged_rubrics(platform, &run);
            (run, judged)
        })
        .filter(|(_, judged)| !judged.is_empty())
        .collect())
}

/// Whether a campaign has runs with rubric checks the judge scored, and how
/// many of them nobody labelled: counted from the run tallies (runs of
/// scenarios with rubric checks that finished passed or failed), so that a
/// report over hundreds of thousands of runs does not read them.
pub(super) async fn rubric_runs(
    platform: &Platform,
    campaign_id: CampaignId,
) -> Result<(bool, u32)> {
    let runs = platform.rubric_run_count(campaign_id).await?;
    if runs == 0 {
        return Ok((false, 0));
    }
    let labelled = platform.store.run_label_count(campaign_id).await?;
    Ok((true, runs.saturating_sub(labelled)))
}

impl Platform {
    /// How many runs of a campaign finished passed or failed in a scenario
    /// with rubric checks, from the run tallies (no scan of the runs).
    pub(crate) async fn rubric_run_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let all = self.scenarios.all();
        let rubric: Vec<&str> = all
            .iter()
            .filter(|s| {
                s.turns
                    .iter()
                    .any(|t| t.checks.iter().any(|c| matches!(c, Check::Rubric { .. })))
            })
            .map(|s| s.id.as_str())
            .collect();
        self.store.rubric_run_count(campaign_id, &rubric).await
    }

    /// The next fixed runs of a campaign whose rubric checks the judge
    /// scored and nobody labelled, in the order they finished, at most
    /// `limit` (default 10, at most 50). The response carries the
    /// conversation and the rubric texts, never the judge's scores.
    pub async fn blind_run_queue(
        &self,
        campaign_id: CampaignId,
        limit: Option<u32>,
    ) -> Result<BlindRunQueue> {
        let limit = queue_limit(limit)?;
        self.get_campaign(campaign_id).await?;
        let labelled = self.store.run_label_count(campaign_id).await?;
        let waiting = unlabelled(self, campaign_id).await?;
        let mut items = Vec::new();
        for (run, judged) in waiting.iter().take(limit as usize) {
            let turns = self
                .store
                .run_turns(RunId(run.id))
                .await?
                .into_iter()
                .map(|t| BlindTurn {
                    role: t.role,
                    content: t.content,
                    latency_ms: t.latency_ms.map(|ms| ms as i64),
                })
                .collect();
            items.push(BlindRunItem {
                run_id: RunId(run.id),
                scenario_id: run.scenario_id.clone(),
                scenario_title: self
                    .scenarios
                    .get(&run.scenario_id)
                    .map(|s| s.title.clone())
                    .or_else(|| run.scenario_title.clone())
                    .unwrap_or_else(|| run.scenario_id.clone()),
                turns,
                rubrics: judged
                    .iter()
                    .map(|j| BlindRubric {
                        check_index: j.check_index,
                        turn: j.turn,
                        rubric: j.rubric.clone(),
                    })
                    .collect(),
            });
        }
        Ok(BlindRunQueue {
            campaign_id,
            items,
            remaining: waiting.len() as u32,
            labelled,
        })
    }

    /// Stores a person's blind label of a run's rubric checks (one score
    /// for each) and reveals the judge's scores. A run is labelled once:
    /// a second label would no longer be blind.
    pub async fn submit_run_label(&self, req: SubmitRunLabel) -> Result<RunLabelRevealed> {
        if req.scores.is_empty() {
            return Err(Error::invalid_msg(
                crate::msg!("error-run-scores-empty"),
                crate::msg!("error-run-scores-suggestion"),
            ));
        }
        for s in &req.scores {
            if !SCALE.contains(&s.score) {
                return Err(Error::invalid_msg(
                    crate::msg!(
                        "error-run-score-range",
                        check = s.check_index,
                        got = s.score.to_string()
                    ),
                    crate::msg!("error-run-score-range-suggestion"),
                ));
            }
        }
        let reviewer = req.reviewer.trim().to_string();
        if reviewer.chars().count() > 200 {
            return Err(Error::invalid_msg(
                crate::msg!("error-reviewer-long"),
                crate::msg!("error-reviewer-long-suggestion"),
            ));
        }
        let Some(run) = self.store.finished_run_checks(req.run_id).await? else {
            if self.store.run_exists(req.run_id).await? {
                return Err(no_rubric(req.run_id));
            }
            return Err(Error::not_found("run", req.run_id));
        };
        let judged = judged_rubrics(self, &run);
        if judged.is_empty() {
            return Err(no_rubric(req.run_id));
        }
        let mut wanted: Vec<u32> = judged.iter().map(|j| j.check_index).collect();
        let mut given: Vec<u32> = req.scores.iter().map(|s| s.check_index).collect();
        wanted.sort_unstable();
        given.sort_unstable();
        if given != wanted {
            // The body is well formed; it does not fit this run's checks.
            return Err(Error::msg(
                ErrorCode::Conflict,
                crate::msg!(
                    "error-run-scores-mismatch",
                    id = req.run_id.to_string(),
                    wanted = format!("{wanted:?}"),
                    given = format!("{given:?}")
                ),
                crate::msg!("error-run-scores-suggestion"),
            ));
        }
        let created_at = self.clock.now();
        let labels: Vec<RunLabel> = req
            .scores
            .iter()
            .map(|s| RunLabel {
                id: self.ids.next_id(),
                campaign_id: run.campaign_id,
                run_id: RunId(run.id),
                check_index: s.check_index,
                score: s.score,
                reviewer: reviewer.clone(),
                created_at,
            })
            .collect();
        if !self.store.insert_run_labels(&labels).await? {
            return Err(Error::msg(
                ErrorCode::Conflict,
                crate::msg!("error-run-label-twice", id = req.run_id.to_string()),
                crate::msg!("error-run-label-twice-suggestion"),
            ));
        }
        self.audit_operation("judge_run_label.create", Some(req.run_id.into()), "ok")
            .await;
        let checks = judged
            .into_iter()
            .map(|j| RevealedRubric {
                mine: labels
                    .iter()
                    .find(|l| l.check_index == j.check_index)
                    .map_or(0, |l| l.score),
                check_index: j.check_index,
                turn: j.turn,
                rubric: j.rubric,
                judge: j.score,
                reason: j.detail,
                judged_by: j.judged_by,
            })
            .collect();
        Ok(RunLabelRevealed {
            run_id: RunId(run.id),
            campaign_id: run.campaign_id,
            reviewer,
            created_at,
            checks,
        })
    }

    /// The rubric labels of a campaign, oldest first.
    pub async fn judge_run_labels(&self, campaign_id: CampaignId) -> Result<Vec<RunLabel>> {
        self.store.run_labels(campaign_id).await
    }
}

fn no_rubric(run_id: RunId) -> Error {
    Error::msg(
        ErrorCode::Conflict,
        crate::msg!("error-run-not-judged", id = run_id.to_string()),
        crate::msg!("error-run-not-judged-suggestion"),
    )
}
