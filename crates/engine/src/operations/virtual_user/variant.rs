//! Derived variants (衍生变体): the same goal said another way, or the same
//! persona with another follow-up strategy. The derivation is recorded in
//! the session's `seed_ref.variant` so that it traces back to its seed.

use super::profile::{FollowUpStrategy, PersonaProfile, has_cjk, parse_goal, parse_persona};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

pub use crate::exploration::VariantKind;

/// Derives `(persona, goal, note)` from a seed persona and goal. The note
/// says what changed, for `seed_ref.variant.note`.
pub fn derive_variant(
    persona: &Value,
    goal: &Value,
    kind: VariantKind,
    seed: u64,
) -> (Value, Value, String) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut persona = persona.clone();
    let mut goal = goal.clone();
    match kind {
        VariantKind::Other => (persona, goal, "unchanged seed".into()),
        VariantKind::RephrasedGoal => {
            let title = parse_goal(&goal).title;
            let stem = title.trim().trim_end_matches(['.', '。', '!', '！']);
            let templates: &[&str] = if has_cjk(stem) {
                &["我想请你帮忙：{t}", "麻烦{t}", "能不能{t}"]
            } else {
                &["I'd like help to {t}", "Please {t}", "Could you {t} for me"]
            };
            let lowered = if has_cjk(stem) {
                stem.to_string()
            } else {
                let mut c = stem.chars();
                c.next()
                    .map(|f| f.to_lowercase().chain(c).collect())
                    .unwrap_or_default()
            };
            let new = templates[rng.random_range(0..templates.len())].replace("{t}", &lowered);
            if let Value::Object(m) = &mut goal {
                m.insert("title".into(), Value::String(new.clone()));
                m.insert("rephrased_from".into(), Value::String(title.clone()));
            } else {
                goal = serde_json::json!({"title": new, "rephrased_from": title});
            }
            (
                persona,
                goal,
                format!("goal re-phrased from {title:?} to {new:?}"),
            )
        }
        VariantKind::OtherFollowUpStrategy => {
            let p = parse_persona(&persona);
            let g = parse_goal(&goal);
            let current = PersonaProfile::of(&p, &g, &persona).strategy;
            let others: Vec<FollowUpStrategy> = FollowUpStrategy::ALL
                .into_iter()
                .filter(|s| *s != current)
                .collect();
            let next = others[rng.random_range(0..others.len())];
            if let Value::Object(m) = &mut persona {
                m.insert(
                    "follow_up_strategy".into(),
                    Value::String(next.as_str().into()),
                );
            } else {
                persona = serde_json::json!({"name": p.name, "follow_up_strategy": next.as_str()});
            }
            (
                persona,
                goal,
                format!(
                    "follow-up strategy {} instead of {}",
                    next.as_str(),
                    current.as_str()
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variants_change_one_thing_and_say_what() {
        let persona = json!({"id": "p1", "name": "Ann"});
        let goal =
            json!({"id": "g1", "title": "Send the weekly report", "slots": {"to": "a@b.com"}});
        let (p, g, note) = derive_variant(&persona, &goal, VariantKind::RephrasedGoal, 7);
        assert_eq!(p, persona, "a re-phrased goal keeps the persona");
        assert_ne!(g["title"], goal["title"]);
        assert_eq!(g["rephrased_from"], "Send the weekly report");
        assert_eq!(g["slots"], goal["slots"], "the facts stay the same");
        assert!(note.contains("re-phrased"));
        let (p, g, note) = derive_variant(&persona, &goal, VariantKind::OtherFollowUpStrategy, 7);
        assert_eq!(g, goal);
        assert_ne!(
            p["follow_up_strategy"], "persistent",
            "the default strategy is replaced"
        );
        assert!(note.contains("instead of persistent"));
    }
}
