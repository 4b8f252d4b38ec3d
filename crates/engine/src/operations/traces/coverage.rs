//! Production on the coverage grid: each imported conversation of a
//! campaign's target is placed on the persona x goal cell it resembles
//! most, by simple rules. Its goal shares the most words with what the
//! user said (Latin words of three letters or more, pairs of Chinese
//! characters), two at least; its persona speaks the user's language,
//! and writes as tersely or not, when one does. A conversation no goal
//! resembles is counted apart.

use crate::domain::campaign::{Goal, Persona, SeedSet};
use crate::domain::findings::CoverageGrid;
use crate::domain::traces::TraceConversation;
use std::collections::{BTreeMap, HashSet};

/// Fewest words a conversation shares with a goal to be placed on it.
const MIN_SHARED: usize = 2;

fn words(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    let mut out: HashSet<String> = lower
        .split(|c: char| !c.is_alphanumeric() || ('\u{4e00}'..='\u{9fff}').contains(&c))
        .filter(|w| w.chars().count() >= 3 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(str::to_string)
        .collect();
    let han: Vec<char> = lower
        .chars()
        .map(|c| {
            if ('\u{4e00}'..='\u{9fff}').contains(&c) {
                c
            } else {
                ' '
            }
        })
        .collect();
    out.extend(
        han.windows(2)
            .filter(|p| p[0] != ' ' && p[1] != ' ')
            .map(|p| p.iter().collect::<String>()),
    );
    out
}

fn goal_words(g: &Goal) -> HashSet<String> {
    let slots: Vec<&str> = g.slots.keys().map(String::as_str).collect();
    words(&format!(
        "{} {} {} {}",
        g.title,
        g.description,
        g.success_criteria.join(" "),
        slots.join(" ")
    ))
}

fn is_chinese(text: &str) -> bool {
    let cjk = text
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    cjk * 2
        >= text
            .chars()
            .filter(char::is_ascii_alphabetic)
            .count()
            .max(1)
}

/// The persona a conversation's user is most like: the user's language
/// (a persona without one speaks any), then the same terseness.
fn persona_for<'a>(personas: &'a [Persona], said: &str, turns: usize) -> Option<&'a Persona> {
    let lang = if is_chinese(said) { "zh" } else { "en" };
    let per_turn = said.chars().count() / turns.max(1);
    let terse = if lang == "zh" {
        per_turn < 15
    } else {
        per_turn < 45
    };
    let speaks = |p: &&Persona| p.language.as_deref().is_none_or(|l| l == lang);
    let style_fits = |p: &&Persona| {
        let style = p
            .style
            .as_ref()
            .map(|s| s.to_string().to_lowercase())
            .unwrap_or_default();
        style.contains(if terse { "terse" } else { "detailed" })
    };
    personas
        .iter()
        .filter(speaks)
        .find(style_fits)
        .or_else(|| personas.iter().find(speaks))
}

/// The cell (persona id, goal id) conversation `c` falls on, if any.
pub fn cell_of(c: &TraceConversation, seeds: &SeedSet) -> Option<(String, String)> {
    let turns: Vec<&str> = c.user_turns().collect();
    let said = turns.join(" ");
    let heard = words(&said);
    let goal = seeds
        .goals
        .iter()
        .map(|g| (goal_words(g).intersection(&heard).count(), g))
        .filter(|(shared, _)| *shared >= MIN_SHARED)
        .max_by_key(|(shared, _)| *shared)?
        .1;
    let persona = persona_for(&seeds.personas, &said, turns.len())?;
    Some((persona.id.clone(), goal.id.clone()))
}

/// Most production conversations a report places (the newest).
pub const MAX_PLACED: u32 = 5_000;

impl crate::platform::Platform {
    /// Places the production conversations imported for `campaign`'s
    /// target on its coverage grid.
    pub async fn place_production(
        &self,
        campaign: &crate::campaign::Campaign,
        grid: &mut CoverageGrid,
    ) -> crate::error::Result<()> {
        let kept = self
            .store
            .target_trace_conversations(campaign.target_id, MAX_PLACED)
            .await?;
        let conversations: Vec<TraceConversation> =
            kept.into_iter().map(|k| k.conversation).collect();
        place(grid, &campaign.seed_set, &conversations);
        Ok(())
    }
}

/// Places `conversations` on `grid`'s cells of `seeds`.
pub fn place(grid: &mut CoverageGrid, seeds: &SeedSet, conversations: &[TraceConversation]) {
    let mut placed: BTreeMap<(String, String), u32> = BTreeMap::new();
    for c in conversations {
        grid.production_conversations += 1;
        match cell_of(c, seeds) {
            Some(cell) => *placed.entry(cell).or_default() += 1,
            None => grid.production_unplaced += 1,
        }
    }
    for cell in &mut grid.cells {
        cell.production = placed
            .remove(&(cell.persona_id.clone(), cell.goal_id.clone()))
            .unwrap_or(0);
    }
}
