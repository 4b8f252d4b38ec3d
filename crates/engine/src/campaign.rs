//! Campaigns: one evaluation window of one target, with a static plan of
//! fixed scenarios, a seed set for exploration and an exploration budget.

use crate::clock::{from_ms, to_ms};
use crate::error::{Error, ErrorCode, Result};
use crate::platform::Platform;
use crate::target::parse_id;
use chrono::{DateTime, Duration, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::Row;
use std::collections::{BTreeMap, HashSet};
use uuid::Uuid;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CampaignStatus {
    Draft,
    Scheduled,
    Running,
    Finalized,
    Cancelled,
}

impl CampaignStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Finalized => "finalized",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "draft" => Self::Draft,
            "scheduled" => Self::Scheduled,
            "running" => Self::Running,
            "finalized" => Self::Finalized,
            "cancelled" => Self::Cancelled,
            other => {
                return Err(Error::internal(anyhow::anyhow!(
                    "unknown campaign status {other}"
                )));
            }
        })
    }
}

/// Formal line (`time_scale == 1`, real time, patrolled) or accelerated
/// line (`time_scale > 1`, compressed time, manual exploration only).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Formal,
    Accelerated,
}

impl Line {
    pub fn of(time_scale: f64) -> Self {
        if time_scale > 1.0 {
            Self::Accelerated
        } else {
            Self::Formal
        }
    }
}

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
const RUNS_PER_INSERT: usize = 500;

pub fn parse_period(s: &str) -> Result<Duration> {
    let s = s.trim();
    let bad = || {
        Error::invalid(
            format!("period {s:?} is not of the form <number><m|h|d>"),
            "Write a period such as 30m, 6h or 1d.",
        )
    };
    if s.len() < 2 {
        return Err(bad());
    }
    let (n, unit) = s.split_at(s.len() - 1);
    let n: i64 = n.parse().map_err(|_| bad())?;
    if n <= 0 {
        return Err(bad());
    }
    match unit {
        "m" => Ok(Duration::minutes(n)),
        "h" => Ok(Duration::hours(n)),
        "d" => Ok(Duration::days(n)),
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
                return Err(Error::invalid(
                    format!("plan entry {id}: give rounds or every, not both"),
                    "Give either rounds (spread evenly) or every (periodic), not both.",
                ));
            }
            if let Some(n) = e.rounds
                && !(1..=MAX_ROUNDS).contains(&n)
            {
                return Err(Error::invalid(
                    format!("plan entry {id}: rounds must be from 1 to {MAX_ROUNDS}, got {n}"),
                    "Use rounds: 1 or more, or every for periodic runs.",
                ));
            }
            if let Some(every) = &e.every {
                parse_period(every).map_err(|err| {
                    Error::invalid(
                        format!("plan entry {id}: every {}", err.body.message),
                        err.body.suggestion,
                    )
                })?;
            }
            if let Some(at) = &e.at {
                if e.every.is_none() {
                    return Err(Error::invalid(
                        format!("plan entry {id}: at {at:?} needs every (e.g. every: 1d)"),
                        "Give every: 1d with at: HH:MM for a daily run, or leave at out.",
                    ));
                }
                NaiveTime::parse_from_str(at, "%H:%M").map_err(|_| {
                    Error::invalid(
                        format!("plan entry {id}: at {at:?} is not a time of day HH:MM"),
                        "Write the time of day as HH:MM, e.g. 09:00.",
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
                return Err(Error::invalid(
                    format!("plan entry {} has both rounds and every", e.scenario_id),
                    "Give either rounds (spread evenly) or every (periodic), not both.",
                ));
            }
            if let Some(n) = e.rounds {
                if n == 0 {
                    return Err(Error::invalid(
                        format!("plan entry {}: rounds must be at least 1", e.scenario_id),
                        "Use rounds: 1 or more.",
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
                        Error::invalid(
                            format!("plan entry {}: at {at:?} is not HH:MM", e.scenario_id),
                            "Write the time of day as HH:MM, e.g. 09:00.",
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

fn too_many() -> Error {
    Error::invalid(
        format!("the plan schedules more than {MAX_PLANNED_RUNS} runs"),
        "Use fewer rounds, a longer period or a shorter window.",
    )
}

/// A seed persona: who the virtual user is. Personas are free JSON written
/// by people and assistants: the fields below are the ones the virtual user
/// acts on (checked when a campaign is created); any other field is kept
/// and returned as given, at the top level.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Persona {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// A list of words (`["impatient", "polite"]`) or an object of named
    /// traits (`{"impatient": true, "tone": "terse"}`).
    #[serde(default, skip_serializing_if = "Traits::is_empty")]
    pub traits: Traits,
    /// Conversational style, e.g. "terse", "chatty", "formal".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// 1 (gives up quickly) to 5 (very patient).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<i32>,
    /// `zh` or `en`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// 1 (novice) to 5 (expert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub technical_level: Option<i32>,
    /// 0.0 to 1.0: how likely the persona changes its mind mid-conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_mind: Option<f64>,
    /// Every other field, kept as given.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// A persona's traits: a list of words, or an object whose keys name the
/// traits and whose values qualify them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Traits {
    List(Vec<String>),
    Named(BTreeMap<String, serde_json::Value>),
}

impl Default for Traits {
    fn default() -> Self {
        Self::List(Vec::new())
    }
}

impl Traits {
    pub fn is_empty(&self) -> bool {
        match self {
            Self::List(words) => words.is_empty(),
            Self::Named(map) => map.is_empty(),
        }
    }

    /// The words the virtual user acts on. Of an object: each key whose
    /// value is not false, zero or empty (`{"impatient": true}` reads
    /// "impatient"), followed by its value when that is text
    /// (`{"tone": "terse"}` reads "tone terse").
    pub fn words(&self) -> Vec<String> {
        use serde_json::Value;
        match self {
            Self::List(words) => words.clone(),
            Self::Named(map) => map
                .iter()
                .filter_map(|(key, value)| match value {
                    Value::Null | Value::Bool(false) => None,
                    Value::Number(n) if n.as_f64() == Some(0.0) => None,
                    Value::String(s) if s.trim().is_empty() => None,
                    Value::String(s) => Some(format!("{key} {}", s.trim())),
                    Value::Array(items) => {
                        let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                        Some(format!("{key} {}", texts.join(" ")).trim().to_string())
                    }
                    _ => Some(key.clone()),
                })
                .collect(),
        }
    }
}

impl From<Vec<String>> for Traits {
    fn from(words: Vec<String>) -> Self {
        Self::List(words)
    }
}

/// A seed goal: what the virtual user wants to get done. Free JSON like
/// [`Persona`]: unknown fields are kept and returned as given.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Goal {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Observable signs that the goal is met, e.g. phrases the target's
    /// reply must contain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub success_criteria: Vec<String>,
    /// Facts the user knows and gives when asked (recipient, date, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub slots: BTreeMap<String, String>,
    /// Every other field, kept as given.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct SeedSet {
    #[serde(default)]
    pub personas: Vec<Persona>,
    #[serde(default)]
    pub goals: Vec<Goal>,
}

impl SeedSet {
    pub fn is_empty(&self) -> bool {
        self.personas.is_empty() || self.goals.is_empty()
    }

    /// Hash of the canonical seed set: campaigns with the same fingerprint
    /// explored the same seeds.
    pub fn fingerprint(&self) -> String {
        // serde_json::Value objects are BTreeMaps: keys come out sorted.
        let canonical = serde_json::to_value(self)
            .map(|v| v.to_string())
            .unwrap_or_default();
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }

    pub fn validate(&self) -> Result<()> {
        let mut seen = HashSet::new();
        for p in &self.personas {
            check_seed_id("persona", &p.id)?;
            if !seen.insert(("p", p.id.as_str())) {
                return Err(Error::invalid(
                    format!("persona id {:?} appears twice in the seed set", p.id),
                    "Give every seed persona a distinct id.",
                ));
            }
            if p.name.trim().is_empty() {
                return Err(Error::invalid(
                    format!("persona {:?} has no name", p.id),
                    "Give every seed persona a name.",
                ));
            }
            p.check_known_fields()?;
        }
        for g in &self.goals {
            check_seed_id("goal", &g.id)?;
            if !seen.insert(("g", g.id.as_str())) {
                return Err(Error::invalid(
                    format!("goal id {:?} appears twice in the seed set", g.id),
                    "Give every seed goal a distinct id.",
                ));
            }
            if g.title.trim().is_empty() {
                return Err(Error::invalid(
                    format!("goal {:?} has no title", g.id),
                    "Give every seed goal a title saying what the user wants.",
                ));
            }
            if let Some(name) = g.slots.keys().find(|k| k.trim().is_empty()) {
                return Err(Error::invalid(
                    format!("goal {:?}: slot name {name:?} is blank", g.id),
                    "Name every slot after the fact it holds, e.g. to, date, order_id.",
                ));
            }
        }
        let size = serde_json::to_string(self)?.len();
        if size > 256 * 1024 {
            return Err(Error::invalid(
                "the seed set is larger than 256 KiB",
                "Keep personas and goals short; describe them, do not paste documents.",
            ));
        }
        Ok(())
    }
}

impl Persona {
    /// The fields the virtual user acts on, within their ranges. Nothing is
    /// corrected: a value out of range is refused, naming field and range.
    fn check_known_fields(&self) -> Result<()> {
        let out_of_range = |field: &str, range: &str, got: String, hint: &str| {
            Error::invalid(
                format!("persona {:?}: {field} must be {range}, got {got}", self.id),
                hint.to_string(),
            )
        };
        if let Some(x) = self.patience
            && !(1..=5).contains(&x)
        {
            return Err(out_of_range(
                "patience",
                "from 1 to 5",
                x.to_string(),
                "Use 1 (gives up quickly) to 5 (very patient), or leave it out for 3.",
            ));
        }
        if let Some(x) = self.technical_level
            && !(1..=5).contains(&x)
        {
            return Err(out_of_range(
                "technical_level",
                "from 1 to 5",
                x.to_string(),
                "Use 1 (novice) to 5 (expert), or leave it out for 3.",
            ));
        }
        if let Some(x) = self.change_mind
            && !(x.is_finite() && (0.0..=1.0).contains(&x))
        {
            return Err(out_of_range(
                "change_mind",
                "from 0 to 1",
                x.to_string(),
                "Use a probability: 0 (never changes its mind) to 1 (always does once).",
            ));
        }
        if let Some(lang) = &self.language
            && !matches!(lang.as_str(), "zh" | "en")
        {
            return Err(out_of_range(
                "language",
                "zh or en",
                format!("{lang:?}"),
                "Use zh for Chinese or en for English, or leave it out to follow the goal's language.",
            ));
        }
        Ok(())
    }
}

fn check_seed_id(kind: &str, id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            format!("{kind} id {id:?} must be 1-64 characters of letters, digits, - _ ."),
            format!("Give the {kind} a short stable id such as {kind}-1."),
        ))
    }
}

/// Exploration budget as configured; missing fields take the platform
/// defaults.
#[derive(
    Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Budget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_interval_minutes: Option<f64>,
}

/// The most sessions a campaign's budget may allow.
pub const MAX_SESSIONS: u32 = 1000;
/// The most user turns a session's budget may allow.
pub const MAX_TURNS: u32 = 100;
/// The longest interval between session starts a budget may ask (a week).
pub const MAX_INTERVAL_MINUTES: f64 = 10_080.0;
/// The longest window, in hours of campaign time (a year).
pub const MAX_DURATION_HOURS: f64 = 8760.0;
/// The largest time scale of the accelerated line.
pub const MAX_TIME_SCALE: f64 = 10_000.0;
/// The most rounds a plan entry may ask.
pub const MAX_ROUNDS: u32 = 1000;

/// The budget in force: defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct EffectiveBudget {
    pub max_sessions: u32,
    pub max_turns: u32,
    pub min_interval_minutes: f64,
}

impl EffectiveBudget {
    pub const DEFAULT: Self = Self {
        max_sessions: 8,
        max_turns: 12,
        min_interval_minutes: 30.0,
    };
}

impl Budget {
    pub fn effective(&self) -> EffectiveBudget {
        let d = EffectiveBudget::DEFAULT;
        EffectiveBudget {
            max_sessions: self.max_sessions.unwrap_or(d.max_sessions),
            max_turns: self.max_turns.unwrap_or(d.max_turns),
            min_interval_minutes: self.min_interval_minutes.unwrap_or(d.min_interval_minutes),
        }
    }

    pub fn validate(&self) -> Result<()> {
        if let Some(n) = self.max_sessions
            && !(1..=MAX_SESSIONS).contains(&n)
        {
            return Err(Error::invalid(
                format!("budget.max_sessions must be from 1 to {MAX_SESSIONS}, got {n}"),
                "Use e.g. 8 sessions per window, or leave it out for the default.",
            ));
        }
        if let Some(n) = self.max_turns
            && !(1..=MAX_TURNS).contains(&n)
        {
            return Err(Error::invalid(
                format!("budget.max_turns must be from 1 to {MAX_TURNS}, got {n}"),
                "Use e.g. 12 user turns per session, or leave it out for the default.",
            ));
        }
        if let Some(m) = self.min_interval_minutes
            && !(m.is_finite() && (0.0..=MAX_INTERVAL_MINUTES).contains(&m))
        {
            return Err(Error::invalid(
                format!(
                    "budget.min_interval_minutes must be from 0 to {MAX_INTERVAL_MINUTES} (a week), got {m}"
                ),
                "Use 0 for no interval, or e.g. 30.",
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Campaign {
    pub id: Uuid,
    pub name: String,
    pub target_id: Uuid,
    pub status: CampaignStatus,
    pub line: Line,
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    pub time_scale: f64,
    pub plan: Plan,
    pub seed_set: SeedSet,
    /// As configured; `None` = platform defaults.
    pub budget: Option<Budget>,
    /// The budget in force.
    pub effective_budget: EffectiveBudget,
    pub seed_fingerprint: String,
    pub last_patrolled_at: Option<DateTime<Utc>>,
    pub previous_campaign_id: Option<Uuid>,
    pub finalized_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Campaign {
    /// Real time of a campaign-time offset.
    pub fn real_time(&self, offset: Duration) -> DateTime<Utc> {
        real_time(self.window_start, self.time_scale, offset)
    }

    /// Window length in campaign time.
    pub fn campaign_duration(&self) -> Duration {
        scale(self.window_end - self.window_start, self.time_scale)
    }
}

/// `ms` of real time scaled by `factor`, in milliseconds.
pub(crate) fn scaled_ms(ms: i64, factor: f64) -> i64 {
    scale(Duration::milliseconds(ms), factor).num_milliseconds()
}

fn scale(d: Duration, factor: f64) -> Duration {
    Duration::milliseconds((d.num_milliseconds() as f64 * factor).round() as i64)
}

pub fn real_time(start: DateTime<Utc>, time_scale: f64, offset: Duration) -> DateTime<Utc> {
    start + scale(offset, 1.0 / time_scale)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateCampaign {
    pub name: String,
    pub target_id: Uuid,
    /// Shorthand for a plan that runs each scenario once, spread evenly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// Defaults to now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_start: Option<DateTime<Utc>>,
    /// Real end of the window; or give `duration_hours`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_end: Option<DateTime<Utc>>,
    /// Window length in campaign time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_hours: Option<f64>,
    /// 1 = formal line (real time); > 1 = accelerated line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_set: Option<SeedSet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// The campaign this one follows, for period comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_campaign_id: Option<Uuid>,
}

impl Platform {
    /// Creates a campaign and schedules its runs. It is `running` when its
    /// window has begun, else `scheduled`.
    #[tracing::instrument(skip_all, fields(name = %req.name))]
    pub async fn create_campaign(&self, req: CreateCampaign) -> Result<Campaign> {
        let name = req.name.trim().to_string();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(Error::invalid(
                "campaign name must be 1-200 characters",
                "Name the campaign after what it evaluates and when, e.g. \"support bot, week 48\".",
            ));
        }
        let target = self.get_target(req.target_id).await.map_err(|e| {
            if e.code() == ErrorCode::NotFound {
                Error::invalid(
                    format!("target_id {} names no target", req.target_id),
                    "Create the target first (POST /api/targets) or pick one from GET /api/targets.",
                )
            } else {
                e
            }
        })?;
        if target.archived_at.is_some() {
            return Err(Error::invalid(
                format!("target {} ({}) is archived", target.name, target.id),
                "Pick a target in use (GET /api/targets) or create a new one.",
            ));
        }
        let time_scale = req.time_scale.unwrap_or(1.0);
        if !(time_scale.is_finite() && (1.0..=MAX_TIME_SCALE).contains(&time_scale)) {
            return Err(Error::invalid(
                format!("time_scale must be from 1 to {MAX_TIME_SCALE}, got {time_scale}"),
                "Use 1 for the formal line, or e.g. 168 to run a week in an hour.",
            ));
        }
        let plan = match (req.plan, req.scenario_ids) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "give either scenario_ids or plan, not both",
                    "Use scenario_ids to run each scenario once, or a plan for rounds and periods.",
                ));
            }
            (Some(p), None) => p,
            (None, Some(ids)) => Plan::from_scenario_ids(&ids),
            (None, None) => Plan::default(),
        };
        plan.validate()?;
        for entry in &plan.entries {
            if self.scenarios.get(&entry.scenario_id).is_none() {
                return Err(Error::invalid(
                    format!("scenario {:?} is not loaded", entry.scenario_id),
                    "List the loaded scenarios with GET /api/scenarios and use their ids.",
                ));
            }
        }
        let now = self.clock.now();
        let start = req.window_start.unwrap_or(now);
        let end = match (req.window_end, req.duration_hours) {
            (Some(end), None) => end,
            (None, Some(h)) if h.is_finite() && h > 0.0 && h <= MAX_DURATION_HOURS => {
                start
                    + scale(
                        Duration::milliseconds((h * 3_600_000.0) as i64),
                        1.0 / time_scale,
                    )
            }
            (None, Some(h)) => {
                return Err(Error::invalid(
                    format!(
                        "duration_hours must be more than 0 and at most {MAX_DURATION_HOURS} (a year), got {h}"
                    ),
                    "E.g. 168 for a one-week window.",
                ));
            }
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "give either window_end or duration_hours, not both",
                    "duration_hours is campaign time; window_end is the real end.",
                ));
            }
            (None, None) => {
                return Err(Error::invalid(
                    "the campaign needs a window: window_end or duration_hours",
                    "E.g. duration_hours: 168 for a one-week window.",
                ));
            }
        };
        if end <= start {
            return Err(Error::invalid(
                "window_end must be after window_start",
                "Check the dates, or use duration_hours.",
            ));
        }
        let seed_set = req.seed_set.unwrap_or_default();
        seed_set.validate()?;
        if let Some(b) = &req.budget {
            b.validate()?;
        }
        if plan.entries.is_empty() && seed_set.is_empty() {
            return Err(Error::invalid(
                "the campaign has nothing to evaluate: no scenario, and no persona and goal to explore",
                "Add at least one scenario, or a persona and a goal.",
            ));
        }
        if let Some(prev) = req.previous_campaign_id {
            self.get_campaign(prev).await?;
        }
        let status = if start <= now {
            CampaignStatus::Running
        } else {
            CampaignStatus::Scheduled
        };
        let duration = scale(end - start, time_scale);
        let schedule = plan.expand(start, duration)?;
        let campaign = Campaign {
            id: self.ids.next_id(),
            name,
            target_id: req.target_id,
            status,
            line: Line::of(time_scale),
            window_start: start,
            window_end: end,
            time_scale,
            seed_fingerprint: seed_set.fingerprint(),
            seed_set,
            effective_budget: req.budget.unwrap_or_default().effective(),
            budget: req.budget,
            plan,
            last_patrolled_at: None,
            previous_campaign_id: req.previous_campaign_id,
            finalized_at: None,
            created_at: now,
            updated_at: now,
        };
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, time_scale, plan,
                previous_campaign_id, created_at, updated_at, seed_set, budget, seed_fingerprint, models)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(campaign.id.to_string())
        .bind(&campaign.name)
        .bind(campaign.target_id.to_string())
        .bind(campaign.status.as_str())
        .bind(to_ms(start))
        .bind(to_ms(end))
        .bind(time_scale)
        .bind(serde_json::to_string(&campaign.plan)?)
        .bind(campaign.previous_campaign_id.map(|id| id.to_string()))
        .bind(to_ms(now))
        .bind(to_ms(now))
        .bind(serde_json::to_string(&campaign.seed_set)?)
        .bind(campaign.budget.map(|b| serde_json::to_string(&b)).transpose()?)
        .bind(&campaign.seed_fingerprint)
        .bind(serde_json::to_string(&self.models_for(&target))?)
        .execute(&mut *tx)
        .await?;
        // Runs go in by hundreds per statement: a campaign can plan
        // hundreds of thousands of them.
        let campaign_id = campaign.id.to_string();
        let mut rows = Vec::with_capacity(schedule.len());
        for (seq, (offset, scenario_id)) in schedule.iter().enumerate() {
            let scenario = self.scenarios.get(scenario_id).ok_or_else(|| {
                Error::invalid(
                    format!("scenario {scenario_id:?} is not loaded"),
                    "Reload the scenarios.",
                )
            })?;
            rows.push((seq, *offset, scenario));
        }
        for chunk in rows.chunks(RUNS_PER_INSERT) {
            let mut insert = sqlx::QueryBuilder::new(
                "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status, created_at) ",
            );
            insert.push_values(chunk, |mut row, (seq, offset, scenario)| {
                row.push_bind(self.ids.next_id().to_string())
                    .push_bind(&campaign_id)
                    .push_bind(scenario.id.as_str())
                    .push_bind(scenario.content_hash.as_str())
                    .push_bind(*seq as i64)
                    .push_bind(offset.num_milliseconds())
                    .push_bind(to_ms(campaign.real_time(*offset)))
                    .push("'pending'")
                    .push_bind(to_ms(now));
            });
            insert.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        self.audit("platform", "campaign.create", Some(campaign.id), "ok")
            .await;
        self.notify(crate::platform::Event::CampaignChanged {
            campaign_id: campaign.id,
        });
        Ok(campaign)
    }

    pub async fn list_campaigns(&self) -> Result<Vec<Campaign>> {
        let rows = sqlx::query("SELECT * FROM campaigns ORDER BY created_at DESC, id DESC")
            .fetch_all(&self.db)
            .await?;
        rows.iter().map(campaign_from_row).collect()
    }

    pub async fn get_campaign(&self, id: Uuid) -> Result<Campaign> {
        let row = sqlx::query("SELECT * FROM campaigns WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(&self.db)
            .await?
            .ok_or_else(|| Error::not_found("campaign", id))?;
        campaign_from_row(&row)
    }

    /// Ends the campaign's window now: the plan stops (runs not started are
    /// marked `skipped`), running exploration sessions expire. Idempotent:
    /// finalizing a finalized campaign returns it unchanged.
    #[tracing::instrument(skip(self))]
    pub async fn finalize_campaign(&self, id: Uuid) -> Result<Campaign> {
        let campaign = self.get_campaign(id).await?;
        if matches!(
            campaign.status,
            CampaignStatus::Finalized | CampaignStatus::Cancelled
        ) {
            return Ok(campaign);
        }
        let now = to_ms(self.clock.now());
        let finalize = move |conn: &rusqlite::Connection| {
            let id = id.to_string();
            let changed = conn.execute(
                "UPDATE campaigns SET status = 'finalized', finalized_at = ?1, updated_at = ?1
                 WHERE id = ?2 AND status NOT IN ('finalized', 'cancelled')",
                rusqlite::params![now, id],
            )?;
            if changed > 0 {
                crate::tally::RunTallies::finish_bare(
                    conn,
                    "UPDATE runs SET status = 'done', verdict = 'skipped', error_reason = 'window_ended', finished_at = ?1
                     WHERE campaign_id = ?2 AND status = 'pending'
                     RETURNING id, campaign_id, scenario_id, offset_ms",
                    rusqlite::params![now, id],
                    crate::fixed::Verdict::Skipped,
                    "window_ended",
                )?;
                conn.execute(
                    "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?1, updated_at = ?1
                     WHERE campaign_id = ?2 AND status = 'running'",
                    rusqlite::params![now, id],
                )?;
            }
            Ok(changed)
        };
        let changed = self.writer.transact(finalize).await?;
        if changed > 0 {
            self.audit("platform", "campaign.finalize", Some(id), "ok")
                .await;
            self.notify(crate::platform::Event::CampaignChanged { campaign_id: id });
        }
        self.get_campaign(id).await
    }
}

pub(crate) fn campaign_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Campaign> {
    let time_scale: f64 = row.try_get("time_scale")?;
    let budget: Option<Budget> = row
        .try_get::<Option<String>, _>("budget")?
        .map(|s| serde_json::from_str(&s))
        .transpose()?;
    Ok(Campaign {
        id: parse_id(row.try_get("id")?)?,
        name: row.try_get("name")?,
        target_id: parse_id(row.try_get("target_id")?)?,
        status: CampaignStatus::parse(row.try_get("status")?)?,
        line: Line::of(time_scale),
        window_start: from_ms(row.try_get("window_start")?),
        window_end: from_ms(row.try_get("window_end")?),
        time_scale,
        plan: serde_json::from_str(row.try_get("plan")?)?,
        seed_set: serde_json::from_str(row.try_get("seed_set")?)?,
        effective_budget: budget.unwrap_or_default().effective(),
        budget,
        seed_fingerprint: row.try_get("seed_fingerprint")?,
        last_patrolled_at: row
            .try_get::<Option<i64>, _>("last_patrolled_at")?
            .map(from_ms),
        previous_campaign_id: row
            .try_get::<Option<String>, _>("previous_campaign_id")?
            .map(|s| parse_id(&s))
            .transpose()?,
        finalized_at: row.try_get::<Option<i64>, _>("finalized_at")?.map(from_ms),
        created_at: from_ms(row.try_get("created_at")?),
        updated_at: from_ms(row.try_get("updated_at")?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        "2026-11-02T08:00:00Z".parse().unwrap()
    }

    #[test]
    fn scenario_list_spreads_runs_evenly() {
        let plan = Plan::from_scenario_ids(&["a".into(), "b".into(), "c".into(), "d".into()]);
        let runs = plan.expand(t0(), Duration::hours(8)).unwrap();
        let offsets: Vec<i64> = runs.iter().map(|(d, _)| d.num_hours()).collect();
        assert_eq!(offsets, vec![0, 2, 4, 6]);
    }

    #[test]
    fn every_day_at_a_time_uses_campaign_time_of_day() {
        let plan = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1d".into()),
                at: Some("09:00".into()),
                ..Default::default()
            }],
        };
        let runs = plan.expand(t0(), Duration::days(7)).unwrap();
        assert_eq!(
            runs.len(),
            7,
            "a week has seven 09:00s after an 08:00 start"
        );
        assert_eq!(runs[0].0, Duration::hours(1));
        assert_eq!(runs[1].0, Duration::hours(25));
    }

    #[test]
    fn bad_plans_are_refused() {
        let both = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1h".into()),
                rounds: Some(2),
                ..Default::default()
            }],
        };
        assert!(both.expand(t0(), Duration::days(1)).is_err());
        assert!(parse_period("5x").is_err());
        assert!(parse_period("0h").is_err());
        let huge = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1m".into()),
                ..Default::default()
            }],
        };
        assert!(
            huge.expand(t0(), Duration::days(365)).is_err(),
            "runaway plans are refused"
        );
    }

    #[test]
    fn real_time_divides_by_time_scale() {
        assert_eq!(
            real_time(t0(), 168.0, Duration::days(7)),
            t0() + Duration::hours(1)
        );
        assert_eq!(
            real_time(t0(), 1.0, Duration::days(7)),
            t0() + Duration::days(7)
        );
    }

    #[test]
    fn fingerprint_is_canonical_and_budget_defaults_apply() {
        let a = SeedSet {
            personas: vec![Persona {
                id: "p".into(),
                name: "P".into(),
                ..Default::default()
            }],
            goals: vec![],
        };
        assert_eq!(a.fingerprint(), a.clone().fingerprint());
        assert_ne!(a.fingerprint(), SeedSet::default().fingerprint());
        let b = Budget {
            max_turns: Some(3),
            ..Default::default()
        }
        .effective();
        assert_eq!(
            (b.max_sessions, b.max_turns, b.min_interval_minutes),
            (8, 3, 30.0)
        );
    }
}
