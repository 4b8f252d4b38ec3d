//! A request to create a campaign, checked on its own: its name, its plan
//! (a plan or scenario ids), its window and time scale, its seeds and
//! budget, and that it has something to do. What needs the platform (the
//! target, the loaded scenarios, the previous campaign) the engine checks
//! after.

use super::{
    Budget, CreateCampaign, MAX_DURATION_HOURS, MAX_TIME_SCALE, MIN_DURATION_HOURS, Plan, SeedSet,
    scale,
};
use crate::error::{Error, Result};
use crate::ids::TargetId;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

/// A campaign request whose every field is checked.
#[derive(Debug, Clone)]
pub struct CheckedCampaign {
    /// Trimmed, 1 to 200 characters.
    pub name: String,
    pub target_id: TargetId,
    /// Valid; its scenarios still to be found loaded.
    pub plan: Plan,
    pub window_start: DateTime<Utc>,
    /// After `window_start`.
    pub window_end: DateTime<Utc>,
    pub time_scale: f64,
    pub seed_set: SeedSet,
    pub budget: Option<Budget>,
    pub previous_campaign_id: Option<Uuid>,
    /// Trimmed, non-empty; the scenario still to be found loaded.
    pub tool_env: Option<String>,
}

impl CreateCampaign {
    /// Checks the request as made at `now` (the window starts then unless
    /// it says otherwise).
    pub fn parse(self, now: DateTime<Utc>) -> Result<CheckedCampaign> {
        let name = campaign_name(&self.name)?;
        let time_scale = checked_time_scale(self.time_scale)?;
        let plan = plan(self.plan, self.scenario_ids)?;
        let window_start = self.window_start.unwrap_or(now);
        let window_end = window_end(
            window_start,
            self.window_end,
            self.duration_hours,
            time_scale,
        )?;
        let seed_set = self.seed_set.unwrap_or_default();
        seed_set.validate()?;
        if let Some(b) = &self.budget {
            b.validate()?;
        }
        if plan.entries.is_empty() && seed_set.is_empty() {
            return Err(Error::invalid_msg(
                crate::msg!("error-campaign-nothing"),
                crate::msg!("error-campaign-nothing-suggestion"),
            ));
        }
        Ok(CheckedCampaign {
            name,
            target_id: self.target_id,
            plan,
            window_start,
            window_end,
            time_scale,
            seed_set,
            budget: self.budget,
            previous_campaign_id: self.previous_campaign_id,
            tool_env: self
                .tool_env
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
        })
    }
}

/// The plan of a new campaign, given as a plan or as scenario ids (not
/// both; neither is the default plan), valid.
fn plan(plan: Option<Plan>, scenario_ids: Option<Vec<String>>) -> Result<Plan> {
    let plan = match (plan, scenario_ids) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid_msg(
                crate::msg!("error-campaign-ids-and-plan"),
                crate::msg!("error-campaign-ids-and-plan-suggestion"),
            ));
        }
        (Some(p), None) => p,
        (None, Some(ids)) => Plan::from_scenario_ids(&ids),
        (None, None) => Plan::default(),
    };
    plan.validate()?;
    Ok(plan)
}

/// A campaign's name, trimmed: 1 to 200 characters.
fn campaign_name(name: &str) -> Result<String> {
    let name = name.trim().to_string();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(Error::invalid_msg(
            crate::msg!("error-campaign-name"),
            crate::msg!("error-campaign-name-suggestion"),
        ));
    }
    Ok(name)
}

/// The time scale of a new campaign: 1 (the formal line, the default) to
/// [`MAX_TIME_SCALE`].
fn checked_time_scale(time_scale: Option<f64>) -> Result<f64> {
    let time_scale = time_scale.unwrap_or(1.0);
    if !(time_scale.is_finite() && (1.0..=MAX_TIME_SCALE).contains(&time_scale)) {
        return Err(Error::out_of_range(
            "time_scale",
            1,
            MAX_TIME_SCALE.to_string(),
            time_scale,
            crate::msg!("error-campaign-time-scale-suggestion"),
        ));
    }
    Ok(time_scale)
}

/// The real end of a new campaign's window: given, or its start and its
/// duration in campaign time (one or the other), after its start.
fn window_end(
    start: DateTime<Utc>,
    window_end: Option<DateTime<Utc>>,
    duration_hours: Option<f64>,
    time_scale: f64,
) -> Result<DateTime<Utc>> {
    let end = match (window_end, duration_hours) {
        (Some(end), None) => end,
        (None, Some(h))
            if h.is_finite() && (MIN_DURATION_HOURS..=MAX_DURATION_HOURS).contains(&h) =>
        {
            start
                + scale(
                    Duration::milliseconds((h * 3_600_000.0) as i64),
                    1.0 / time_scale,
                )
        }
        (None, Some(h)) => {
            return Err(Error::invalid_msg(
                crate::msg!(
                    "error-campaign-duration",
                    min = MIN_DURATION_HOURS.to_string(),
                    max = MAX_DURATION_HOURS.to_string(),
                    got = h.to_string()
                ),
                crate::msg!("error-campaign-duration-suggestion"),
            ));
        }
        (Some(_), Some(_)) => {
            return Err(Error::invalid_msg(
                crate::msg!("error-campaign-end-and-duration"),
                crate::msg!("error-campaign-end-and-duration-suggestion"),
            ));
        }
        (None, None) => {
            return Err(Error::invalid_msg(
                crate::msg!("error-campaign-no-window"),
                crate::msg!("error-campaign-no-window-suggestion"),
            ));
        }
    };
    if end <= start {
        return Err(Error::invalid_msg(
            crate::msg!("error-campaign-window-order"),
            crate::msg!("error-campaign-window-order-suggestion"),
        ));
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::{Goal, Persona};

    fn seeds() -> SeedSet {
        SeedSet {
            personas: vec![Persona {
                id: "p".into(),
                name: "P".into(),
                ..Default::default()
            }],
            goals: vec![Goal {
                id: "g".into(),
                title: "G".into(),
                ..Default::default()
            }],
        }
    }

    fn request() -> CreateCampaign {
        CreateCampaign {
            name: "  week 49 ".into(),
            target_id: TargetId(Uuid::nil()),
            duration_hours: Some(2.0),
            time_scale: Some(120.0),
            seed_set: Some(seeds()),
            ..Default::default()
        }
    }

    fn refused(req: CreateCampaign) -> String {
        req.parse(DateTime::UNIX_EPOCH).unwrap_err().body.message
    }

    #[test]
    fn a_request_is_checked_whole_before_the_platform_is_asked() {
        let now = DateTime::UNIX_EPOCH;
        let ok = request().parse(now).unwrap();
        assert_eq!(ok.name, "week 49", "trimmed");
        assert_eq!(ok.window_start, now);
        assert_eq!(
            ok.window_end - ok.window_start,
            Duration::seconds(60),
            "two hours of campaign time at 120x"
        );

        let nothing = CreateCampaign {
            seed_set: None,
            ..request()
        };
        assert_eq!(
            nothing.parse(now).unwrap_err().body.code,
            crate::error::ErrorCode::InvalidInput,
            "neither a plan nor seeds"
        );
        let both = CreateCampaign {
            plan: Some(Plan::default()),
            scenario_ids: Some(vec!["a".into()]),
            ..request()
        };
        let blank = CreateCampaign {
            name: "   ".into(),
            ..request()
        };
        let too_fast = CreateCampaign {
            time_scale: Some(MAX_TIME_SCALE * 2.0),
            ..request()
        };
        let no_window = CreateCampaign {
            duration_hours: None,
            ..request()
        };
        let messages: Vec<String> = [both, blank, too_fast, no_window]
            .into_iter()
            .map(refused)
            .collect();
        for (m, words) in messages
            .iter()
            .zip(["plan", "name", "time_scale", "window"])
        {
            assert!(m.to_lowercase().contains(words), "{m}");
        }
    }
}
