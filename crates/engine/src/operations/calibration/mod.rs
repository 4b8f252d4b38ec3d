//! The judge calibrated against people (DESIGN §11, "a judge that has
//! earned its say"): a person labels the judge's sampled sessions blind, on
//! the judge's own criteria, and the labels give raw agreement and Cohen's
//! kappa per criterion with a bootstrap interval. A criterion is
//! *calibrated* once its kappa reaches [`JudgePolicy::min_kappa`] over at
//! least [`JudgePolicy::min_items`] labelled sessions; until then every
//! place that shows its judge figures calls them advisory.
//!
//! Fixed runs whose checks include a rubric join the queue too (see
//! [`runs`]): people rate each rubric check on the judge's 1-5 scale, and
//! the criterion [`RUBRIC`] is computed exactly like the session criteria.
//!
//! The judge's consistency: with [`JudgePolicy::second_pass`] on, each
//! reviewed session is reviewed a second time with its rounds in reverse
//! order (and, for a judge model, the rubric reworded); the share of equal
//! scores between the passes is the judge's self-agreement per criterion.

use crate::domain::ids::{CampaignId, SessionId};
use crate::error::{Error, ErrorCode, Result};
use crate::judge::{Dimensions, JudgeMethod, JudgeReview};
use crate::platform::Platform;

use serde::{Deserialize, Serialize};

mod runs;
mod stats;

pub use runs::{
    BlindRubric, BlindRunItem, BlindRunQueue, RUBRIC, RevealedRubric, RubricScore, RunLabel,
    RunLabelRevealed, SubmitRunLabel,
};

pub use crate::domain::calibration::{BlindLabel, CriterionScores};
pub use stats::{
    RESAMPLES, SCALE, bootstrap_interval, raw_agreement, unweighted_kappa, weighted_kappa,
};

/// The judge's criteria, in the order the judge scores them.
pub const CRITERIA: [&str; 3] = ["attitude", "professionalism", "hallucination"];

/// Thresholds of calibration and consistency, part of what a campaign
/// report is computed with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgePolicy {
    /// Kappa from which a criterion counts as calibrated; default 0.6.
    pub min_kappa: f64,
    /// Labelled sessions a criterion needs before it can be calibrated;
    /// default 30.
    pub min_items: u32,
    /// Review each sampled session twice (rounds reversed, rubric
    /// reworded) to measure the judge's self-agreement; default off.
    #[serde(default)]
    pub second_pass: bool,
    /// Self-agreement below which the judge is said to contradict itself
    /// on a criterion; default 0.8.
    pub min_self_agreement: f64,
}

impl Default for JudgePolicy {
    fn default() -> Self {
        Self {
            min_kappa: 0.6,
            min_items: 30,
            second_pass: false,
            min_self_agreement: 0.8,
        }
    }
}

/// Most labelled sessions a criterion can ask for.
pub const MAX_MIN_ITEMS: u32 = 10_000;

impl JudgePolicy {
    pub fn validate(&self) -> Result<()> {
        if !(self.min_kappa.is_finite() && (0.0..=1.0).contains(&self.min_kappa)) {
            return Err(Error::out_of_range(
                "min_kappa",
                0,
                1,
                self.min_kappa,
                crate::msg!("error-min-kappa-suggestion"),
            ));
        }
        if !(1..=MAX_MIN_ITEMS).contains(&self.min_items) {
            return Err(Error::out_of_range(
                "min_items",
                1,
                MAX_MIN_ITEMS,
                self.min_items,
                crate::msg!("error-min-items-suggestion"),
            ));
        }
        if !(self.min_self_agreement.is_finite() && (0.0..=1.0).contains(&self.min_self_agreement))
        {
            return Err(Error::out_of_range(
                "min_self_agreement",
                0,
                1,
                self.min_self_agreement,
                crate::msg!("error-min-self-agreement-suggestion"),
            ));
        }
        Ok(())
    }
}

/// One message of a queued conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindTurn {
    /// `user` or `target`.
    pub role: String,
    pub content: String,
    pub latency_ms: Option<i64>,
}

/// A judged session waiting for a person's label: the conversation and
/// who spoke, never the judge's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindItem {
    pub session_id: SessionId,
    pub persona_name: String,
    pub goal_title: String,
    pub end_reason: Option<String>,
    pub turns: Vec<BlindTurn>,
}

/// The next unlabelled sessions of the judge's sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindQueue {
    pub campaign_id: CampaignId,
    pub items: Vec<BlindItem>,
    /// Judged sessions not labelled yet, `items` included.
    pub remaining: u32,
    /// Sessions of the campaign labelled so far.
    pub labelled: u32,
}

/// A person's blind label of one judged session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SubmitLabel {
    pub session_id: SessionId,
    pub scores: CriterionScores,
    /// Who labelled (free text, optional).
    #[serde(default)]
    pub reviewer: String,
}

/// One of the judge's scores, revealed after the label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RevealedScore {
    pub score: u8,
    /// The judge's quoted evidence.
    pub evidence: crate::i18n::Text,
}

/// The judge's scores of a session, per criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RevealedScores {
    pub attitude: RevealedScore,
    pub professionalism: RevealedScore,
    pub hallucination: RevealedScore,
}

impl From<&Dimensions> for RevealedScores {
    fn from(d: &Dimensions) -> Self {
        let one = |s: &crate::judge::DimensionScore| RevealedScore {
            score: s.score,
            evidence: s.evidence.clone(),
        };
        Self {
            attitude: one(&d.attitude),
            professionalism: one(&d.professionalism),
            hallucination: one(&d.hallucination),
        }
    }
}

/// What a label reveals once it is stored: the judge's own scores with
/// their evidence, to show beside the person's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LabelRevealed {
    pub label: BlindLabel,
    pub judge: RevealedScores,
    pub judge_method: JudgeMethod,
}

/// How one criterion's judge scores compare with people's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CriterionCalibration {
    pub criterion: String,
    /// Sessions with both a judge score and a person's label.
    pub items: u32,
    /// Share with equal scores.
    pub agreement: Option<f64>,
    /// Linearly weighted Cohen's kappa; `None` when undefined (no label,
    /// or both always gave one same score).
    pub kappa: Option<f64>,
    /// 95% bootstrap interval of `kappa` (1000 seeded resamples).
    pub kappa_low: Option<f64>,
    pub kappa_high: Option<f64>,
    /// kappa >= min_kappa over at least min_items sessions; otherwise this
    /// criterion's judge figures are advisory.
    pub calibrated: bool,
}

impl CriterionCalibration {
    /// What its judge figures are, in words: "calibrated", or "advisory"
    /// with what calibration needs under `policy`.
    pub fn status(&self, policy: &JudgePolicy) -> crate::i18n::Msg {
        if self.calibrated {
            crate::msg!("calibration-calibrated")
        } else if self.criterion == RUBRIC {
            crate::msg!(
                "calibration-advisory-rubric",
                min_kappa = format!("{:.2}", policy.min_kappa),
                min_items = policy.min_items
            )
        } else {
            crate::msg!(
                "calibration-advisory-sessions",
                min_kappa = format!("{:.2}", policy.min_kappa),
                min_items = policy.min_items
            )
        }
    }
}

/// How often the judge gave the same score twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CriterionConsistency {
    pub criterion: String,
    /// Sessions reviewed twice.
    pub items: u32,
    /// Share of them with equal scores in both passes.
    pub self_agreement: Option<f64>,
    /// Linearly weighted kappa between the passes.
    pub kappa: Option<f64>,
    /// Self-agreement below the policy's minimum.
    pub contradicts: bool,
}

/// Judge-human calibration (and, with the second pass, judge consistency)
/// of one campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgeCalibration {
    pub policy: JudgePolicy,
    /// Always `linear_weighted`: what the kappa figures are.
    pub kappa_kind: String,
    /// Sessions labelled by a person.
    pub labelled: u32,
    /// Judged sessions nobody labelled yet.
    pub unlabelled: u32,
    /// Fixed runs whose rubric checks a person labelled.
    pub runs_labelled: u32,
    /// Fixed runs with judged rubric checks nobody labelled yet.
    pub runs_unlabelled: u32,
    /// In [`CRITERIA`] order, then [`RUBRIC`] when the campaign has fixed
    /// runs with judged rubric checks (its items are rubric checks). A
    /// campaign with such runs and no judged session has only [`RUBRIC`].
    pub criteria: Vec<CriterionCalibration>,
    /// Present when any session was reviewed twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consistency: Option<Vec<CriterionConsistency>>,
}

impl JudgeCalibration {
    /// Whether the judge's figures for `criterion` are advisory.
    pub fn advisory(&self, criterion: &str) -> bool {
        !self
            .criteria
            .iter()
            .any(|c| c.criterion == criterion && c.calibrated)
    }
}

/// Most queued items one call returns.
pub const MAX_QUEUE: u32 = 50;

/// The scores of a stored judge review, when it has them.
fn judge_dimensions(review: Option<&str>) -> Option<(Dimensions, JudgeMethod)> {
    let review: JudgeReview = serde_json::from_str(review?).ok()?;
    Some((review.dimensions?, review.method))
}

/// A reproducible bootstrap seed per campaign and criterion.
fn seed(campaign_id: CampaignId, criterion: usize) -> u64 {
    let b = campaign_id.0.as_bytes();
    u64::from_le_bytes(b[8..16].try_into().unwrap_or([0; 8])) ^ (criterion as u64 + 1)
}

/// The scores of criterion `i` in each pair of score sets.
fn column(pairs: &[(CriterionScores, CriterionScores)], i: usize) -> Vec<(u8, u8)> {
    pairs
        .iter()
        .map(|(a, b)| (a.each()[i].1, b.each()[i].1))
        .collect()
}

/// Agreement per criterion of (judge, person) pairs.
pub fn calibrate(
    campaign_id: CampaignId,
    pairs: &[(CriterionScores, CriterionScores)],
    policy: &JudgePolicy,
) -> Vec<CriterionCalibration> {
    CRITERIA
        .iter()
        .enumerate()
        .map(|(i, &criterion)| calibrate_one(campaign_id, i, criterion, &column(pairs, i), policy))
        .collect()
}

/// Agreement on one criterion of (judge, person) score pairs; `index`
/// seeds its bootstrap (the criterion's place in the report).
pub fn calibrate_one(
    campaign_id: CampaignId,
    index: usize,
    criterion: &str,
    p: &[(u8, u8)],
    policy: &JudgePolicy,
) -> CriterionCalibration {
    let kappa = weighted_kappa(p);
    let interval = bootstrap_interval(p, RESAMPLES, seed(campaign_id, index));
    CriterionCalibration {
        criterion: criterion.to_string(),
        items: p.len() as u32,
        agreement: raw_agreement(p),
        kappa,
        kappa_low: interval.map(|i| i.0),
        kappa_high: interval.map(|i| i.1),
        calibrated: p.len() as u32 >= policy.min_items
            && kappa.is_some_and(|k| k >= policy.min_kappa),
    }
}

/// Self-agreement per criterion of (first pass, second pass) pairs.
pub fn consistency(
    pairs: &[(CriterionScores, CriterionScores)],
    policy: &JudgePolicy,
) -> Vec<CriterionConsistency> {
    CRITERIA
        .iter()
        .enumerate()
        .map(|(i, &criterion)| {
            let p = column(pairs, i);
            let self_agreement = raw_agreement(&p);
            CriterionConsistency {
                criterion: criterion.to_string(),
                items: p.len() as u32,
                self_agreement,
                kappa: weighted_kappa(&p),
                contradicts: self_agreement.is_some_and(|a| a < policy.min_self_agreement),
            }
        })
        .collect()
}

/// A blind queue's page size: `limit`, else 10; from 1 to `MAX_QUEUE`.
fn queue_limit(limit: Option<u32>) -> Result<u32> {
    let limit = limit.unwrap_or(10);
    if !(1..=MAX_QUEUE).contains(&limit) {
        return Err(Error::out_of_range(
            "limit",
            1,
            MAX_QUEUE,
            limit,
            crate::msg!("error-queue-limit-suggestion"),
        ));
    }
    Ok(limit)
}

impl Platform {
    /// The thresholds the judge is held to now.
    pub fn judge_policy(&self) -> JudgePolicy {
        *self.judge_policy.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Replaces the thresholds (settings, command-line flags); the next
    /// report and the next judge review use them.
    pub fn set_judge_policy(&self, policy: JudgePolicy) -> Result<()> {
        policy.validate()?;
        *self.judge_policy.write().unwrap_or_else(|p| p.into_inner()) = policy;
        Ok(())
    }

    /// The next judged sessions of a campaign that nobody labelled, oldest
    /// first, at most `limit` (default 10, at most 50). The response never
    /// carries the judge's scores: the label is given blind.
    pub async fn blind_queue(
        &self,
        campaign_id: CampaignId,
        limit: Option<u32>,
    ) -> Result<BlindQueue> {
        let limit = queue_limit(limit)?;
        self.get_campaign(campaign_id).await?;
        let labelled = self.store.label_count(campaign_id).await?;
        let remaining = self
            .store
            .unlabelled_judged_session_count(campaign_id)
            .await?;
        let mut items = Vec::new();
        for session in self
            .store
            .unlabelled_judged_sessions(campaign_id, limit)
            .await?
        {
            let persona = crate::virtual_user::parse_persona(&session.persona);
            let goal = crate::virtual_user::parse_goal(&session.goal);
            let turns = self
                .store
                .session_messages_for_review(SessionId(session.id))
                .await?
                .into_iter()
                .map(|m| BlindTurn {
                    role: m.role,
                    content: m.content,
                    latency_ms: m.latency_ms,
                })
                .collect();
            items.push(BlindItem {
                session_id: SessionId(session.id),
                persona_name: persona.name,
                goal_title: goal.title,
                end_reason: session.end_reason,
                turns,
            });
        }
        Ok(BlindQueue {
            campaign_id,
            items,
            remaining,
            labelled,
        })
    }

    /// Stores a person's blind label of a judged session and reveals the
    /// judge's scores. A session is labelled once: a second label would no
    /// longer be blind.
    pub async fn submit_label(&self, req: SubmitLabel) -> Result<LabelRevealed> {
        for (criterion, score) in req.scores.each() {
            if !SCALE.contains(&score) {
                return Err(Error::out_of_range(
                    &format!("scores.{criterion}"),
                    1,
                    5,
                    score,
                    crate::msg!("error-label-score-suggestion"),
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
        let judgement = self
            .store
            .judgement(req.session_id)
            .await?
            .ok_or_else(|| Error::not_found("session", req.session_id))?;
        let campaign_id = judgement.campaign_id;
        let judged = (judgement.judge_status == "done")
            .then(|| judge_dimensions(judgement.judge_review.as_deref()))
            .flatten();
        let Some((judge, judge_method)) = judged else {
            return Err(Error::msg(
                ErrorCode::Conflict,
                crate::msg!("error-label-not-judged", id = req.session_id.to_string()),
                crate::msg!("error-label-not-judged-suggestion"),
            ));
        };
        let label = BlindLabel {
            id: self.ids.next_id(),
            campaign_id,
            session_id: req.session_id,
            scores: req.scores,
            reviewer,
            created_at: self.clock.now(),
        };
        let inserted = self.store.insert_label(&label).await?;
        if !inserted {
            return Err(Error::msg(
                ErrorCode::Conflict,
                crate::msg!("error-label-twice", id = req.session_id.to_string()),
                crate::msg!("error-label-twice-suggestion"),
            ));
        }
        self.audit_operation("judge_label.create", Some(req.session_id.into()), "ok")
            .await;
        Ok(LabelRevealed {
            label,
            judge: RevealedScores::from(&judge),
            judge_method,
        })
    }

    /// The labels of a campaign, oldest first.
    pub async fn judge_labels(&self, campaign_id: CampaignId) -> Result<Vec<BlindLabel>> {
        self.store.labels(campaign_id).await
    }

    /// Judge-human agreement per criterion of a campaign (the rubric
    /// criterion when fixed runs have judged rubric checks), and the
    /// judge's self-agreement when sessions were reviewed twice.
    pub async fn judge_calibration(&self, campaign_id: CampaignId) -> Result<JudgeCalibration> {
        self.get_campaign(campaign_id).await?;
        let policy = self.judge_policy();
        let labels = self.store.labels_with_reviews(campaign_id).await?;
        let pairs: Vec<_> = labels
            .iter()
            .filter_map(|(human, review)| {
                let (judge, _) = judge_dimensions(review.as_deref())?;
                Some((CriterionScores::of(&judge), *human))
            })
            .collect();
        let unlabelled = self
            .store
            .unlabelled_judged_session_count(campaign_id)
            .await?;
        let twice: Vec<_> = self
            .store
            .reviews_twice(campaign_id)
            .await?
            .iter()
            .filter_map(|(first, second)| {
                let (a, _) = judge_dimensions(first.as_deref())?;
                let (b, _) = judge_dimensions(Some(second))?;
                Some((CriterionScores::of(&a), CriterionScores::of(&b)))
            })
            .collect();
        let (has_rubric, runs_unlabelled) = runs::rubric_runs(self, campaign_id).await?;
        // A campaign of fixed runs only has no session criteria to show.
        let mut criteria = if has_rubric && labels.is_empty() && unlabelled == 0 {
            Vec::new()
        } else {
            calibrate(campaign_id, &pairs, &policy)
        };
        if has_rubric {
            let rubric = runs::rubric_pairs(self, campaign_id).await?;
            criteria.push(calibrate_one(
                campaign_id,
                CRITERIA.len(),
                RUBRIC,
                &rubric,
                &policy,
            ));
        }
        Ok(JudgeCalibration {
            policy,
            kappa_kind: "linear_weighted".into(),
            labelled: labels.len() as u32,
            unlabelled,
            runs_labelled: self.store.run_label_count(campaign_id).await?,
            runs_unlabelled,
            criteria,
            consistency: (!twice.is_empty()).then(|| consistency(&twice, &policy)),
        })
    }
}
