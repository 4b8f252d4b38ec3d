//! Exploration: virtual-user sessions inside a campaign, the guardrail
//! ledger that bounds them, and the patrol view that lets a stateless agent
//! decide what to explore next.
//!
//! Sessions are their own entity (never runs) so that exploration data
//! never enters the fixed-scenario pass rate.

pub mod explore;
pub mod findings;
pub mod ledger;
pub mod patrol;
pub mod session;
pub mod simulator_faults;

pub use explore::{ExploreRequest, ExploreStarted};
pub use ledger::{LedgerAction, LedgerEntry};
pub use patrol::PatrolReport;
pub use session::{
    CloseSession, CreateSession, EndReason, ExperienceRecord, ExplorationSession, FailSession,
    MessageReply, PlayedBy, SendMessage, SessionStatus, SessionTranscript, SessionTurn, Trigger,
};
pub use simulator_faults::{SimulatorFault, SimulatorFaultKind};

use serde::{Deserialize, Serialize};

/// Where a session's persona and goal come from. Auto-triggered sessions
/// must name seeds of the campaign's seed set; a variant says how it was
/// derived from them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SeedRef {
    pub persona_id: String,
    pub goal_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Variant {
    pub kind: VariantKind,
    #[serde(default)]
    pub note: String,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum VariantKind {
    /// Same goal, expressed differently.
    RephrasedGoal,
    /// Same persona, another way of following up.
    OtherFollowUpStrategy,
    Other,
}

/// The emotions an experience record may carry; anything else is mapped
/// onto this list (the original is kept as `emotion_raw`).
pub const EMOTIONS: [&str; 7] = [
    "satisfied",
    "neutral",
    "confused",
    "frustrated",
    "angry",
    "delighted",
    "anxious",
];

/// Maps a free-form emotion (English or Chinese, any case) onto
/// [`EMOTIONS`]. Returns the canonical emotion and whether the input was
/// already canonical.
pub fn normalize_emotion(raw: &str) -> (&'static str, bool) {
    let folded = raw.trim().to_lowercase();
    if let Some(e) = EMOTIONS.iter().find(|e| **e == folded) {
        return (e, true);
    }
    let canonical = match folded.as_str() {
        "" => "neutral",
        "happy" | "pleased" | "content" | "glad" | "satisfaction" | "good" | "fine" | "满意"
        | "满足" | "还行" | "不错" => "satisfied",
        "ok" | "okay" | "calm" | "indifferent" | "meh" | "中立" | "平静" | "一般" | "中性"
        | "无感" => "neutral",
        "confusion" | "puzzled" | "lost" | "unsure" | "uncertain" | "bewildered" | "困惑"
        | "迷惑" | "疑惑" | "迷茫" | "不解" => "confused",
        "frustration" | "annoyed" | "irritated" | "disappointed" | "impatient" | "upset"
        | "tired" | "沮丧" | "失望" | "烦躁" | "不耐烦" | "无奈" | "烦" => "frustrated",
        "anger" | "mad" | "furious" | "outraged" | "生气" | "愤怒" | "恼火" | "气愤" | "暴怒" => {
            "angry"
        }
        "delight" | "joyful" | "excited" | "thrilled" | "very happy" | "impressed" | "开心"
        | "高兴" | "惊喜" | "愉快" | "非常满意" | "兴奋" => "delighted",
        "anxiety" | "worried" | "nervous" | "stressed" | "afraid" | "焦虑" | "担心" | "紧张"
        | "不安" | "着急" => "anxious",
        _ => "neutral",
    };
    (canonical, false)
}

/// Case- and space-folded form of an issue text, used to group the same
/// blocker reported by several sessions.
pub fn issue_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', '。', '!', '！'])
        .to_string()
}
