//! Period comparison: this campaign against earlier campaigns of the same
//! target and plan, on fixed-scenario results only (exploration data does
//! not take part). Differences come with their noise floor: Newcombe's
//! interval of the pass-rate change (built from the two Wilson intervals,
//! honest at small samples and at 0% or 100%), pass^k where scenarios
//! repeat, and the per-scenario flip rate; a change inside the noise is
//! said to be so.

use crate::campaign::Campaign;
use crate::domain::ids::CampaignId;
use crate::error::Result;
use crate::i18n::Text;
use crate::msg;
use crate::platform::Platform;
use crate::role_models::Role;
use crate::structured::OutputMode;
use serde::{Deserialize, Serialize};

pub use crate::domain::report::{ModelsUsed, Outcomes, RoleOutputModes};

/// How many earlier periods a comparison lists.
pub const MAX_PERIODS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PassAtK {
    pub k: u32,
    /// Probability that k independent runs of a scenario all pass, averaged
    /// over scenarios with at least k judged runs.
    pub value: f64,
    pub scenarios: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PeriodDelta {
    pub campaign_id: CampaignId,
    pub campaign_name: String,
    pub window_start: chrono::DateTime<chrono::Utc>,
    pub pass_rate: Option<f64>,
    pub judged_runs: u32,
    /// This campaign's pass rate minus that one's.
    pub delta: Option<f64>,
    /// 95% interval of the delta (Newcombe's hybrid score interval).
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The interval contains zero: the change is within noise.
    pub within_noise: bool,
    /// Scenarios in both campaigns whose majority verdict differs, over
    /// scenarios in both.
    pub flip_rate: Option<f64>,
    pub flipped_scenarios: Vec<String>,
    /// Warnings such as a different target, user or judge model.
    pub warnings: Vec<Text>,
    /// One sentence in plain words.
    pub verdict: Text,
    /// That period's task figures per difficulty group (seed 002's table).
    #[serde(default)]
    pub tasks: Vec<crate::domain::report::GroupTasks>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PeriodComparison {
    pub campaign_id: CampaignId,
    pub pass_rate: Option<f64>,
    pub judged_runs: u32,
    /// pass^k of this campaign where scenarios repeat.
    pub pass_at_k: Vec<PassAtK>,
    /// Scenarios of this campaign with both passing and failing runs, over
    /// scenarios with at least two judged runs: the noise inside one period.
    pub within_period_flip_rate: Option<f64>,
    /// Earlier periods, most recent first.
    pub periods: Vec<PeriodDelta>,
    /// This period's task figures per difficulty group.
    #[serde(default)]
    pub tasks: Vec<crate::domain::report::GroupTasks>,
}

fn pass_rate(o: &Outcomes) -> (Option<f64>, u32) {
    let all: Vec<bool> = o.values().flatten().copied().collect();
    let n = all.len() as u32;
    let passed = all.iter().filter(|p| **p).count() as f64;
    ((n > 0).then(|| passed / f64::from(n)), n)
}

fn binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// pass^k (all of k runs pass), unbiased from c passes among n runs:
/// C(c, k) / C(n, k), averaged over scenarios with n >= k.
pub fn pass_at_k(o: &Outcomes) -> Vec<PassAtK> {
    let max_n = o.values().map(Vec::len).max().unwrap_or(0) as u32;
    (1..=max_n.min(8))
        .filter_map(|k| {
            let vals: Vec<f64> = o
                .values()
                .filter(|v| v.len() as u32 >= k)
                .map(|v| {
                    let c = v.iter().filter(|p| **p).count() as u64;
                    binomial(c, u64::from(k)) / binomial(v.len() as u64, u64::from(k))
                })
                .collect();
            (!vals.is_empty() && (k == 1 || max_n > 1)).then(|| PassAtK {
                k,
                value: vals.iter().sum::<f64>() / vals.len() as f64,
                scenarios: vals.len() as u32,
            })
        })
        .collect()
}

/// Share of scenarios with both passing and failing runs.
pub fn within_period_flip_rate(o: &Outcomes) -> Option<f64> {
    let repeated: Vec<&Vec<bool>> = o.values().filter(|v| v.len() >= 2).collect();
    if repeated.is_empty() {
        return None;
    }
    let mixed = repeated
        .iter()
        .filter(|v| v.iter().any(|p| *p) && v.iter().any(|p| !*p))
        .count();
    Some(mixed as f64 / repeated.len() as f64)
}

fn majority(v: &[bool]) -> bool {
    v.iter().filter(|p| **p).count() * 2 >= v.len()
}

/// Scenarios present in both whose majority verdict differs.
pub fn flips(a: &Outcomes, b: &Outcomes) -> (Option<f64>, Vec<String>) {
    let common: Vec<&String> = a
        .keys()
        .filter(|k| b.get(*k).is_some_and(|v| !v.is_empty()))
        .collect();
    let common: Vec<&String> = common.into_iter().filter(|k| !a[*k].is_empty()).collect();
    if common.is_empty() {
        return (None, Vec::new());
    }
    let flipped: Vec<String> = common
        .iter()
        .filter(|k| majority(&a[**k]) != majority(&b[**k]))
        .map(|k| (*k).clone())
        .collect();
    (Some(flipped.len() as f64 / common.len() as f64), flipped)
}

/// 95% interval of pass_rate(a) - pass_rate(b) over the judged runs
/// (Newcombe's hybrid score method); `None` when either has no judged run.
pub fn delta_interval(a: &[bool], b: &[bool]) -> Option<(f64, f64)> {
    let passed = |xs: &[bool]| xs.iter().filter(|p| **p).count() as u32;
    crate::domain::stats::newcombe_delta(passed(a), a.len() as u32, passed(b), b.len() as u32)
        .map(|i| (i.low, i.high))
}

/// Compares `current` with earlier periods (most recent first).
pub fn compare(
    current: (&Campaign, &Outcomes, &ModelsUsed),
    earlier: &[(Campaign, Outcomes, ModelsUsed)],
) -> PeriodComparison {
    let (campaign, outcomes, models) = current;
    let (rate, judged) = pass_rate(outcomes);
    let flat_a: Vec<bool> = outcomes.values().flatten().copied().collect();
    let periods = earlier
        .iter()
        .map(|(c, o, m)| {
            let (r, n) = pass_rate(o);
            let flat_b: Vec<bool> = o.values().flatten().copied().collect();
            let delta = rate.zip(r).map(|(a, b)| a - b);
            let ci = delta_interval(&flat_a, &flat_b);
            let within_noise = ci.is_none_or(|(lo, hi)| lo <= 0.0 && hi >= 0.0);
            let (flip_rate, flipped_scenarios) = flips(outcomes, o);
            let mut warnings: Vec<Text> = Vec::new();
            if m.target != models.target {
                warnings.push(
                    msg!(
                        "comparison-warning-target",
                        then = m.target.as_str(),
                        now = models.target.as_str()
                    )
                    .into(),
                );
            }
            if m.virtual_user != models.virtual_user {
                warnings.push(msg!("comparison-warning-user").into());
            }
            if m.judge != models.judge {
                warnings.push(msg!("comparison-warning-judge").into());
            }
            let points = |x: f64| format!("{:+.1}", x * 100.0);
            let verdict = match (delta, ci) {
                (Some(d), Some((lo, hi))) if within_noise => msg!(
                    "comparison-within-noise",
                    change = points(d),
                    low = points(lo),
                    high = points(hi)
                ),
                (Some(d), Some((lo, hi))) if d > 0.0 => msg!(
                    "comparison-improved",
                    change = format!("{:.1}", d.abs() * 100.0),
                    low = points(lo),
                    high = points(hi)
                ),
                (Some(d), Some((lo, hi))) => msg!(
                    "comparison-dropped",
                    change = format!("{:.1}", d.abs() * 100.0),
                    low = points(lo),
                    high = points(hi)
                ),
                _ => msg!("comparison-not-enough"),
            };
            PeriodDelta {
                campaign_id: c.id,
                campaign_name: c.name.clone(),
                window_start: c.window_start,
                pass_rate: r,
                judged_runs: n,
                delta,
                ci_low: ci.map(|x| x.0),
                ci_high: ci.map(|x| x.1),
                within_noise,
                flip_rate,
                flipped_scenarios,
                warnings,
                verdict: verdict.into(),
                tasks: Vec::new(),
            }
        })
        .collect();
    PeriodComparison {
        campaign_id: campaign.id,
        pass_rate: rate,
        judged_runs: judged,
        pass_at_k: pass_at_k(outcomes),
        within_period_flip_rate: within_period_flip_rate(outcomes),
        periods,
        tasks: Vec::new(),
    }
}

fn plan_key(c: &Campaign) -> Vec<String> {
    let mut ids: Vec<String> = c
        .plan
        .entries
        .iter()
        .map(|e| e.scenario_id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

impl Platform {
    /// The models that play each role for a campaign on `target` now:
    /// the configured role models, or the offline engines.
    pub fn models_for(&self, target: &crate::target::Target) -> ModelsUsed {
        let roles = self.role_models();
        let label = |m: &Option<crate::role_models::ModelConfig>, offline: &str| {
            Some(m.as_ref().map_or_else(
                || offline.to_string(),
                |c| format!("{} @ {}", c.model, c.base_url),
            ))
        };
        ModelsUsed {
            target: target.channel.model_label(),
            virtual_user: label(&roles.virtual_user, "offline persona engine"),
            judge: label(&roles.judge, "offline heuristic judge"),
            output_modes: RoleOutputModes::default(),
        }
    }

    /// Records how a role model of the campaign was asked for its JSON
    /// (written only when it changes). A failure is logged: it costs the
    /// report a detail, never the work that produced it.
    pub async fn note_output_mode(&self, campaign_id: CampaignId, role: Role, mode: OutputMode) {
        let done = self.store.set_output_mode(campaign_id, role, mode).await;
        if let Err(e) = done {
            tracing::warn!(%campaign_id, ?role, error = %e, "could not record the output mode");
        }
    }

    /// Passed/failed outcomes per scenario of a campaign's fixed runs.
    pub async fn outcomes(&self, campaign_id: CampaignId) -> Result<Outcomes> {
        self.store.run_outcomes(campaign_id).await
    }

    pub async fn models_used(&self, campaign_id: CampaignId) -> Result<ModelsUsed> {
        self.store.models_used(campaign_id).await
    }

    /// This campaign against the earlier campaigns of the same target and
    /// plan (same set of scenarios); `None` when there is no earlier one.
    pub async fn period_comparison(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Option<PeriodComparison>> {
        let campaign = self.get_campaign(campaign_id).await?;
        let key = plan_key(&campaign);
        let mut earlier = Vec::new();
        for c in self.list_campaigns().await? {
            if earlier.len() >= MAX_PERIODS {
                break;
            }
            if c.id == campaign.id
                || c.target_id != campaign.target_id
                || c.window_start >= campaign.window_start
                || plan_key(&c) != key
            {
                continue;
            }
            let o = self.outcomes(c.id).await?;
            let m = self.models_used(c.id).await?;
            earlier.push((c, o, m));
        }
        if earlier.is_empty() {
            return Ok(None);
        }
        earlier.sort_by_key(|e| std::cmp::Reverse(e.0.window_start));
        let outcomes = self.outcomes(campaign.id).await?;
        let models = self.models_used(campaign.id).await?;
        let mut comparison = compare((&campaign, &outcomes, &models), &earlier);
        comparison.tasks = self.group_tasks(&campaign).await?;
        for (period, (c, _, _)) in comparison.periods.iter_mut().zip(&earlier) {
            period.tasks = self.group_tasks(c).await?;
        }
        Ok(Some(comparison))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::TargetId;
    use uuid::Uuid;

    fn outcomes(spec: &[(&str, &[bool])]) -> Outcomes {
        spec.iter()
            .map(|(k, v)| (k.to_string(), v.to_vec()))
            .collect()
    }

    #[test]
    fn pass_at_k_matches_hand_computation() {
        // a: 2 of 3 pass; b: 3 of 3 pass.
        let o = outcomes(&[("a", &[true, true, false]), ("b", &[true, true, true])]);
        let p = pass_at_k(&o);
        assert_eq!(p[0].k, 1);
        assert!((p[0].value - (2.0 / 3.0 + 1.0) / 2.0).abs() < 1e-9);
        // pass^2 for a = C(2,2)/C(3,2) = 1/3; b = 1.
        assert!((p[1].value - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-9);
        // pass^3 for a = 0; b = 1.
        assert!((p[2].value - 0.5).abs() < 1e-9);
    }

    #[test]
    fn flip_rates_count_changed_majorities() {
        let a = outcomes(&[
            ("x", &[true, true]),
            ("y", &[false, false]),
            ("z", &[true, false]),
        ]);
        let b = outcomes(&[("x", &[true, true]), ("y", &[true, true]), ("w", &[true])]);
        let (rate, flipped) = flips(&a, &b);
        assert_eq!(flipped, vec!["y".to_string()]);
        assert_eq!(rate, Some(0.5), "one of the two common scenarios flipped");
        assert_eq!(within_period_flip_rate(&a), Some(1.0 / 3.0));
    }

    #[test]
    fn different_models_carry_a_warning_and_noise_is_named() {
        let campaign = |name: &str, day: i64| crate::campaign::Campaign {
            id: CampaignId(Uuid::now_v7()),
            name: name.into(),
            target_id: TargetId::default(),
            status: crate::campaign::CampaignStatus::Finalized,
            line: crate::campaign::Line::Formal,
            window_start: chrono::DateTime::from_timestamp(day * 86_400, 0).unwrap(),
            window_end: chrono::DateTime::from_timestamp((day + 1) * 86_400, 0).unwrap(),
            time_scale: 1.0,
            plan: Default::default(),
            seed_set: Default::default(),
            budget: None,
            effective_budget: crate::campaign::Budget::default().effective(),
            seed_fingerprint: String::new(),
            last_patrolled_at: None,
            previous_campaign_id: None,
            finalized_at: None,
            created_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
            updated_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
        };
        let now_models = ModelsUsed {
            target: "t".into(),
            virtual_user: Some("offline persona engine".into()),
            judge: Some("qwen @ http://127.0.0.1:1/v1".into()),
            output_modes: RoleOutputModes::default(),
        };
        let then_models = ModelsUsed {
            judge: Some("offline heuristic judge".into()),
            ..now_models.clone()
        };
        let o = outcomes(&[("a", &[true, false, true, true])]);
        let current = campaign("now", 7);
        let cmp = compare(
            (&current, &o, &now_models),
            &[(campaign("then", 0), o.clone(), then_models)],
        );
        let p = &cmp.periods[0];
        assert_eq!(p.delta, Some(0.0));
        assert!(p.within_noise, "identical outcomes are within noise");
        assert!(
            p.verdict.to_string().contains("within noise"),
            "said in plain words: {}",
            p.verdict
        );
        assert_eq!(
            p.warnings.len(),
            1,
            "only the judge differs: {:?}",
            p.warnings
        );
        assert!(p.warnings[0].to_string().contains("judge"));
    }

    #[test]
    fn the_change_interval_separates_real_changes_from_noise() {
        let (lo, hi) = delta_interval(&[true; 100], &[false; 100]).unwrap();
        assert!(lo > 0.9 && hi == 1.0, "a real change: {lo}..{hi}");
        let (lo, hi) = delta_interval(&[false; 5], &[false; 5]).unwrap();
        assert!(
            lo < -0.3 && hi > 0.3,
            "two all-fail periods of 5 runs say little, not a point: {lo}..{hi}"
        );
        let half: Vec<bool> = (0..20).map(|i| i % 2 == 0).collect();
        let slightly_more: Vec<bool> = (0..20).map(|i| i < 11).collect();
        let (lo, hi) = delta_interval(&slightly_more, &half).unwrap();
        assert!(
            lo < 0.0 && hi > 0.0,
            "55% vs 50% on 20 runs each is within noise: {lo}..{hi}"
        );
        assert_eq!(delta_interval(&[], &half), None);
    }
}
