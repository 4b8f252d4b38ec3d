//! Production on the coverage grid: each imported conversation of a
//! campaign's target is placed on the persona x goal cell it resembles
//! most, by simple rules. Its goal shares the most words with what the
//! user said (Latin words of three letters or more, pairs of Chinese
//! characters), two at least; its persona speaks the user's language,
//! and writes as tersely or not, when one does. A conversation no goal
//! resembles is counted apart.

use crate::domain::campaign::{Goal, Persona, SeedSet};
use crate::domain::findings::CoverageGrid;
use crate::domain::traces::{Said, Voice, is_han};
use crate::i18n::Lang;
use std::collections::{BTreeMap, HashSet};

/// Fewest words a conversation shares with a goal to be placed on it.
const MIN_SHARED: usize = 2;

fn words(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    let mut out: HashSet<String> = lower
        .split(|c: char| !c.is_alphanumeric() || is_han(c))
        .filter(|w| w.chars().count() >= 3 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(str::to_string)
        .collect();
    let han: Vec<char> = lower
        .chars()
        .map(|c| if is_han(c) { c } else { ' ' })
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

/// The persona a conversation's user is most like: the user's language
/// (a persona without one speaks any), then the same terseness.
fn persona_for<'a>(personas: &'a [Persona], said: &Said) -> Option<&'a Persona> {
    let voice = Voice::of(&said.text, said.turns);
    let speaks = |p: &&Persona| p.language.as_deref().is_none_or(|l| l == voice.lang());
    let style_fits = |p: &&Persona| {
        let style = p
            .style
            .as_ref()
            .map(|s| s.to_string().to_lowercase())
            .unwrap_or_default();
        Lang::ALL
            .iter()
            .any(|l| style.contains(&voice.style().render(*l).to_lowercase()))
    };
    personas
        .iter()
        .filter(speaks)
        .find(style_fits)
        .or_else(|| personas.iter().find(speaks))
}

/// The cell (persona id, goal id) a conversation whose users said `said`
/// falls on, if any.
pub fn cell_of(said: &Said, seeds: &SeedSet) -> Option<(String, String)> {
    let heard = words(&said.text);
    let goal = seeds
        .goals
        .iter()
        .map(|g| (goal_words(g).intersection(&heard).count(), g))
        .filter(|(shared, _)| *shared >= MIN_SHARED)
        .max_by_key(|(shared, _)| *shared)?
        .1;
    let persona = persona_for(&seeds.personas, said)?;
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
        let said = self
            .store
            .target_trace_said(campaign.target_id, MAX_PLACED)
            .await?;
        place(grid, &campaign.seed_set, &said);
        Ok(())
    }
}

/// Places the conversations whose users said `conversations` on `grid`'s
/// cells of `seeds`.
pub fn place(grid: &mut CoverageGrid, seeds: &SeedSet, conversations: &[Said]) {
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
