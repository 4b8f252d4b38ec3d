//! The judge review (judge 复核) of exploration sessions: after close, a
//! sample of the conversation is reviewed for attitude, professionalism and
//! hallucination, and the virtual user itself is reviewed so that simulator
//! faults are not blamed on the target.
//!
//! With a judge role model the sample goes to it (at most `max_rounds`
//! rounds, each message truncated to `max_chars`); without one a heuristic
//! judge looks at the whole conversation (empty or repeated replies,
//! unverified numbers, refusal loops, latency). A failed review stores its
//! error and blocks nothing.

use crate::channel::ChatMessage;
use crate::clock::to_ms;
use crate::error::Result;
use crate::platform::{Event, Platform};
use crate::role_models::ChatClient;
use crate::structured::{OutputSchema, PerLanguage};
use crate::text::{is_refusal, truncate};
use crate::virtual_user::lang_of;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::LazyLock;

mod heuristic;
mod model;
mod second_pass;
mod trajectory;
pub(crate) use trajectory::unfulfilled_claims;
mod worker;

pub use heuristic::heuristic_review;
pub use model::{
    REVIEW_SCHEMA, RubricWording, judge_prompt, judge_prompt_worded, model_review,
    model_review_worded, parse_judge_output, review_schema,
};
pub use second_pass::{REVERSED_AND_REWORDED, REVERSED_ROUNDS, reversed_rounds};
pub use worker::{load_session, review_pending, review_session};

pub use crate::domain::judge::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::virtual_user::Lang;
    use serde_json::json;

    fn msg(role: &str, content: &str) -> SessionMessage {
        SessionMessage {
            role: role.into(),
            content: content.into(),
            latency_ms: Some(5),
            steps: Vec::new(),
        }
    }

    #[test]
    fn sampling_keeps_first_and_last_rounds() {
        let messages: Vec<SessionMessage> = (1..=10)
            .flat_map(|i| {
                [
                    msg("user", &format!("u{i}")),
                    msg("target", &format!("t{i}")),
                ]
            })
            .collect();
        let all = rounds(&messages);
        let picked: Vec<u32> = sample_rounds(&all, 3).iter().map(|r| r.number).collect();
        assert_eq!(picked.len(), 3);
        assert_eq!(picked.first(), Some(&1));
        assert_eq!(picked.last(), Some(&10));
        assert_eq!(
            sample_rounds(&all, 20).len(),
            10,
            "short conversations go whole"
        );
    }

    #[test]
    fn judge_output_follows_the_review_schema() {
        let en = REVIEW_SCHEMA.get(Lang::En);
        let (d, f, s) = parse_judge_output(
            "```json\n{\"attitude\": {\"score\": 4, \"evidence\": \"Sure\"},\
             \"professionalism\": {\"score\": 3, \"evidence\": \"\"},\
             \"hallucination\": {\"score\": 5, \"evidence\": \"none\"},\
             \"findings\": [{\"grade\": \"poor\", \"dimension\": \"hallucination\", \"text\": \"made up 42%\", \"turn\": 2, \"step\": 0}],\
             \"simulator\": {\"in_persona\": true, \"quit_early\": true, \"invented_facts\": false}}\n```",
            en,
        )
        .expect("an answer of the schema, in a code fence, is usable");
        assert_eq!(d.attitude.score, 4);
        assert_eq!(d.attitude.evidence, "Sure".into());
        assert_eq!(d.professionalism.score, 3);
        assert_eq!(d.hallucination.score, 5);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].grade, Grade::Poor);
        assert_eq!(f[0].turn, Some(2));
        assert!(
            s.quit_early && s.simulator_fault,
            "quitting early is the simulator's fault"
        );
        // What parses but breaks the schema is never half-used.
        let e = parse_judge_output(
            "{\"dimensions\": {\"attitude\": 4}, \"professionalism\": 3, \"hallucination\": 4}",
            en,
        )
        .unwrap_err();
        assert!(e.contains("schema"), "a schema violation is named: {e}");
        let e = parse_judge_output(
            "{\"attitude\": {\"score\": 9, \"evidence\": \"\"}, \"professionalism\": {\"score\": 3, \"evidence\": \"\"},\
             \"hallucination\": {\"score\": 4, \"evidence\": \"\"}, \"findings\": [],\
             \"simulator\": {\"in_persona\": true, \"quit_early\": false, \"invented_facts\": false}}",
            en,
        )
        .unwrap_err();
        assert!(
            e.contains("/attitude/score"),
            "an out-of-range score is named by its path: {e}"
        );
        assert!(parse_judge_output("no json", en).is_err());
    }

    #[test]
    fn every_output_schema_compiles_and_chinese_text_is_shorter() {
        use crate::virtual_user::model_user::{RECORD_SCHEMA, TURN_SCHEMA};
        // LazyLock panics on a schema that does not compile.
        for s in [&*REVIEW_SCHEMA, &*TURN_SCHEMA, &*RECORD_SCHEMA] {
            let (en, zh) = (s.get(Lang::En), s.get(Lang::Zh));
            assert_eq!(en.name, zh.name);
            assert!(en.schema.is_object());
            let longest = |schema: &OutputSchema| {
                let text = schema.schema.to_string();
                text.split("\"maxLength\":")
                    .skip(1)
                    .filter_map(|rest| {
                        rest.split(|c: char| !c.is_ascii_digit())
                            .next()?
                            .parse::<u32>()
                            .ok()
                    })
                    .max()
            };
            assert!(
                longest(zh) < longest(en),
                "{}: a Chinese answer gets fewer characters ({:?} < {:?})",
                en.name,
                longest(zh),
                longest(en)
            );
        }
        assert!(crate::analysis::ANALYSIS_SCHEMA.schema.is_object());
        // A Chinese review quoting a whole message breaks its schema.
        let quote = "这".repeat(60);
        let review = json!({
            "attitude": {"score": 4, "evidence": quote},
            "professionalism": {"score": 4, "evidence": ""},
            "hallucination": {"score": 4, "evidence": ""},
            "findings": [],
            "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false},
        });
        assert!(REVIEW_SCHEMA.get(Lang::En).check(&review).is_ok());
        assert!(REVIEW_SCHEMA.get(Lang::Zh).check(&review).is_err());
    }

    #[test]
    fn heuristic_flags_unverified_numbers_and_refusal_loops() {
        let session = SessionForReview {
            persona: json!({"name": "Ann", "language": "en"}),
            goal: json!({"title": "Summarise sales", "slots": {"region": "north"}}),
            experience: None,
            end_reason: Some("user_gave_up".into()),
            played_by: crate::exploration::PlayedBy::Builtin,
            messages: vec![
                msg("user", "Summarise the north region sales"),
                msg("target", "North grew 37% last quarter."),
                msg("user", "Where does that number come from?"),
                msg("target", "Sorry, I cannot help with that."),
                msg("user", "Please check the data"),
                msg("target", "Sorry, I cannot help with that."),
            ],
            tools: Vec::new(),
            max_steps: None,
        };
        let r = heuristic_review(&session);
        assert_eq!(r.method, JudgeMethod::Heuristic);
        let d = r.dimensions.expect("heuristic reviews always score");
        assert!(
            d.hallucination.score <= 3,
            "an unverified figure lowers the score"
        );
        assert!(
            d.hallucination.evidence.to_string().contains("37%")
                || d.hallucination.evidence.to_string().contains("37")
        );
        assert!(r.findings.iter().any(|f| f.dimension == "hallucination"
            && f.grade == Grade::Poor
            && f.text.to_string().contains("37")
            && f.turn == Some(1)));
        assert!(
            r.findings
                .iter()
                .any(|f| f.dimension == "attitude" && f.text.to_string().contains("refusal loop"))
        );
        assert!(
            r.findings
                .iter()
                .any(|f| f.text.to_string().contains("repeated"))
        );
        assert_eq!(r.findings[0].grade, Grade::Poor, "poor findings come first");
        let sim = r.simulator.expect("simulator reviewed");
        assert!(
            !sim.simulator_fault,
            "an English persona speaking English with given facts is fine"
        );
    }
}
