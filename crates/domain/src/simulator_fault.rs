//! What the check of the virtual user found wrong with its own play: a
//! simulator fault is counted apart and never against the target.

use crate::text::Lang;
use serde::{Deserialize, Serialize};

/// What the virtual user did wrong.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SimulatorFaultKind {
    InventedFact,
    LeftLanguage,
    QuitEarly,
    WentOnAfterGoal,
    Drifted,
    /// The record and the end reason disagree on the goal (met, yet given
    /// up; or not met, yet ended as met).
    RecordDisagrees,
}

impl SimulatorFaultKind {
    pub const ALL: [Self; 6] = [
        Self::InventedFact,
        Self::LeftLanguage,
        Self::QuitEarly,
        Self::WentOnAfterGoal,
        Self::Drifted,
        Self::RecordDisagrees,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InventedFact => "invented_fact",
            Self::LeftLanguage => "left_language",
            Self::QuitEarly => "quit_early",
            Self::WentOnAfterGoal => "went_on_after_goal",
            Self::Drifted => "drifted",
            Self::RecordDisagrees => "record_disagrees",
        }
    }

    /// A short name for reports, in English and Chinese.
    pub fn label(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Self::InventedFact, Lang::En) => "invented a fact",
            (Self::InventedFact, Lang::Zh) => "编造了事实",
            (Self::LeftLanguage, Lang::En) => "left the persona's language",
            (Self::LeftLanguage, Lang::Zh) => "没有使用角色的语言",
            (Self::QuitEarly, Lang::En) => "gave up too early",
            (Self::QuitEarly, Lang::Zh) => "过早放弃",
            (Self::WentOnAfterGoal, Lang::En) => "went on after the goal was met",
            (Self::WentOnAfterGoal, Lang::Zh) => "目标达成后仍在继续",
            (Self::Drifted, Lang::En) => "drifted from the goal",
            (Self::Drifted, Lang::Zh) => "偏离了目标",
            (Self::RecordDisagrees, Lang::En) => "its record contradicts its end",
            (Self::RecordDisagrees, Lang::Zh) => "体验记录与结束原因矛盾",
        }
    }
}

impl SimulatorFault {
    /// The fault in words, in any language: its kind and what the check
    /// found (the stored `explanation` is the English of it).
    pub fn msg(&self) -> crate::i18n::Msg {
        let detail = self.detail.as_deref().unwrap_or_default();
        match self.kind {
            SimulatorFaultKind::InventedFact => {
                crate::msg!("judge-fault-invented_fact", detail = detail)
            }
            SimulatorFaultKind::LeftLanguage => crate::msg!("judge-fault-left_language"),
            SimulatorFaultKind::QuitEarly => crate::msg!("judge-fault-quit_early", detail = detail),
            SimulatorFaultKind::WentOnAfterGoal => {
                crate::msg!("judge-fault-went_on_after_goal", detail = detail)
            }
            SimulatorFaultKind::Drifted => crate::msg!("judge-fault-drifted", detail = detail),
            SimulatorFaultKind::RecordDisagrees => {
                crate::msg!("judge-fault-record_disagrees", detail = detail)
            }
        }
    }
}

/// One fault the check found in a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SimulatorFault {
    pub kind: SimulatorFaultKind,
    /// The user turn (1-based) it refers to, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// What the explanation is about, as found: the invented figure, the
    /// count of replies, the language spoken (for the UI's own wording).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A short explanation, in English.
    pub explanation: String,
}

impl SimulatorFault {
    pub fn new(
        kind: SimulatorFaultKind,
        turn: Option<u32>,
        detail: Option<String>,
        text: String,
    ) -> Self {
        Self {
            kind,
            turn,
            detail,
            explanation: text,
        }
    }
}
