//! A campaign's plan: which scenarios run, how often, in what rounds,
//! and the runs it expands into over the window.

use super::*;

/// Which scenarios run how often across the window (campaign time).
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
}

/// One plan line. With neither `rounds` nor `every` the scenario runs once;
/// a plan of such entries spreads its runs evenly across the window.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct PlanEntry {
    pub scenario_id: String,
    /// Run this many times, spread evenly across the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Run periodically: `30m`, `6h`, `1d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<String>,
    /// With `every: 1d`: the campaign-time of day, `HH:MM` (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// The most runs a plan may schedule.
pub const MAX_PLANNED_RUNS: usize = 200_000;
/// Runs inserted per statement when a campaign is created (8 bound values
/// each, well under SQLite's limit of 32,766).
pub const RUNS_PER_INSERT: usize = 500;

pub fn parse_period(s: &str) -> Result<Duration> {
    let s = s.trim();
    let bad = || {
        Error::invalid_msg(
            crate::msg!("error-period-form", period = s),
            crate::msg!("error-period-form-suggestion"),
        )
    };
    // The unit is the last character, whatever its width in bytes.
    let Some((at, unit)) = s.char_indices().last() else {
        return Err(bad());
    };
    let n: i64 = s[..at].parse().map_err(|_| bad())?;
    if n <= 0 {
        return Err(bad());
    }
    match unit {
        'm' => Ok(Duration::minutes(n)),
        'h' => Ok(Duration::hours(n)),
        'd' => Ok(Duration::days(n)),
        _ => Err(bad()),
    }
}

impl Plan {
    /// Refuses entries the plan cannot run as written, naming the entry
    /// and the field.
    pub fn validate(&self) -> Result<()> {
        for e in &self.entries {
            let id = &e.scenario_id;
            if e.rounds.is_some() && e.every.is_some() {
                return Err(Error::invalid_msg(
                    crate::msg!("error-plan-rounds-and-every", scenario = id.to_string()),
                    crate::msg!("error-plan-rounds-and-every-suggestion"),
                ));
            }
            if let Some(n) = e.rounds
                && !(1..=MAX_ROUNDS).contains(&n)
            {
                return Err(Error::invalid_msg(
                    crate::msg!(
                        "error-plan-rounds-range",
                        scenario = id.to_string(),
                        max = MAX_ROUNDS,
                        got = n.to_string()
                    ),
                    crate::msg!("error-plan-rounds-range-suggestion"),
                ));
            }
            if let Some(every) = &e.every {
                parse_period(every).map_err(|err| {
                    let (message, suggestion) = err.body.into_msgs();
                    Error::invalid_msg(
                        crate::msg!(
                            "error-plan-every",
                            scenario = id.to_string(),
                            reason = message
                        ),
                        suggestion,
                    )
                })?;
            }
            if let Some(at) = &e.at {
                if e.every.is_none() {
                    return Err(Error::invalid_msg(
                        crate::msg!(
                            "error-plan-at-needs-every",
                            scenario = id.to_string(),
                            at = at.as_str()
                        ),
                        crate::msg!("error-plan-at-needs-every-suggestion"),
                    ));
                }
                NaiveTime::parse_from_str(at, "%H:%M").map_err(|_| {
                    Error::invalid_msg(
                        crate::msg!(
                            "error-plan-at-form",
                            scenario = id.to_string(),
                            at = at.as_str()
                        ),
                        crate::msg!("error-plan-at-form-suggestion"),
                    )
                })?;
            }
        }
        Ok(())
    }

    pub fn from_scenario_ids(ids: &[String]) -> Self {
        Self {
            entries: ids
                .iter()
                .map(|id| PlanEntry {
                    scenario_id: id.clone(),
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Expands the plan into `(campaign-time offset, scenario id)` pairs,
    /// sorted by offset, for a window of `duration` campaign time starting
    /// at `start` (used for the time of day of `at`).
    pub fn expand(
        &self,
        start: DateTime<Utc>,
        duration: Duration,
    ) -> Result<Vec<(Duration, String)>> {
        let mut out = Vec::new();
        let once: Vec<&PlanEntry> = self
            .entries
            .iter()
            .filter(|e| e.rounds.is_none() && e.every.is_none())
            .collect();
        for (i, e) in once.iter().enumerate() {
            out.push((
                duration * i as i32 / once.len() as i32,
                e.scenario_id.clone(),
            ));
        }
        for e in &self.entries {
            if e.rounds.is_some() && e.every.is_some() {
                return Err(Error::invalid_msg(
                    crate::msg!(
                        "error-plan-rounds-and-every",
                        scenario = e.scenario_id.as_str()
                    ),
                    crate::msg!("error-plan-rounds-and-every-suggestion"),
                ));
            }
            if let Some(n) = e.rounds {
                if n == 0 {
                    return Err(Error::invalid_msg(
                        crate::msg!(
                            "error-plan-rounds-range",
                            scenario = e.scenario_id.as_str(),
                            max = MAX_ROUNDS,
                            got = "0"
                        ),
                        crate::msg!("error-plan-rounds-range-suggestion"),
                    ));
                }
                for i in 0..n {
                    out.push((duration * i as i32 / n as i32, e.scenario_id.clone()));
                    if out.len() > MAX_PLANNED_RUNS {
                        return Err(too_many());
                    }
                }
            }
            if let Some(every) = &e.every {
                let period = parse_period(every)?;
                let mut first = Duration::zero();
                if let Some(at) = &e.at {
                    let t = NaiveTime::parse_from_str(at, "%H:%M").map_err(|_| {
                        Error::invalid_msg(
                            crate::msg!(
                                "error-plan-at-form",
                                scenario = e.scenario_id.as_str(),
                                at = at.as_str()
                            ),
                            crate::msg!("error-plan-at-form-suggestion"),
                        )
                    })?;
                    let day_start = start.date_naive().and_time(t).and_utc();
                    let mut d = day_start - start;
                    while d < Duration::zero() {
                        d += Duration::days(1);
                    }
                    first = d;
                }
                let mut t = first;
                while t < duration {
                    out.push((t, e.scenario_id.clone()));
                    if out.len() > MAX_PLANNED_RUNS {
                        return Err(too_many());
                    }
                    t += period;
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        Ok(out)
    }
}

pub fn too_many() -> Error {
    Error::invalid_msg(
        crate::msg!("error-plan-too-many-runs", max = MAX_PLANNED_RUNS),
        crate::msg!("error-plan-too-many-runs-suggestion"),
    )
}
