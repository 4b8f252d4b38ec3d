//! The names of the runs and sessions a report cites (see
//! `agenteval_domain::evidence`): every run and session id the analysis,
//! the failing checks, the issues and the judge findings name.

use crate::domain::evidence::{
    EvidenceNames, RunName, SessionName, parse_turn_citation, stored_goal_title,
    stored_persona_name,
};
use crate::domain::ids::{CampaignId, RunId, SessionId};
use crate::error::Result;
use crate::platform::Platform;
use crate::report::CampaignReport;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Every run and session the report cites, each once.
pub fn cited(report: &CampaignReport) -> (Vec<RunId>, Vec<SessionId>) {
    let mut runs: BTreeSet<RunId> = BTreeSet::new();
    let mut sessions: BTreeSet<SessionId> = BTreeSet::new();
    for s in &report.fixed.per_scenario {
        runs.extend(s.failing_checks.iter().map(|c| c.example_run_id));
    }
    if let Some(a) = &report.analysis {
        for c in &a.claims {
            runs.extend(
                c.run_ids
                    .iter()
                    .filter_map(|id| id.trim().parse::<RunId>().ok()),
            );
            sessions.extend(
                c.session_ids
                    .iter()
                    .filter_map(|id| id.trim().parse::<SessionId>().ok()),
            );
            sessions.extend(
                c.turn_ids
                    .iter()
                    .filter_map(|t| parse_turn_citation(t).map(|(id, _)| id)),
            );
        }
    }
    if let Some(e) = &report.exploration {
        for i in &e.issues {
            sessions.extend(i.session_ids.iter().copied());
        }
        sessions.extend(e.findings.iter().map(|f| f.session_id));
    }
    (runs.into_iter().collect(), sessions.into_iter().collect())
}

impl Platform {
    /// Names the runs and sessions `runs` and `sessions` of a campaign;
    /// `titles` gives scenario titles by id (a run of an unknown scenario
    /// is named by the scenario's id).
    pub async fn evidence_names(
        &self,
        campaign_id: CampaignId,
        runs: &[RunId],
        sessions: &[SessionId],
        titles: &BTreeMap<&str, &str>,
    ) -> Result<EvidenceNames> {
        let (run_places, session_places) = tokio::try_join!(
            self.store.run_places(campaign_id, runs),
            self.store.session_places(campaign_id, sessions),
        )?;
        // Sessions of one seed share their persona and goal: each text is
        // read once.
        let mut personas: HashMap<String, String> = HashMap::new();
        let mut goals: HashMap<String, String> = HashMap::new();
        let named =
            |names: &mut HashMap<String, String>, text: String, name: fn(&str) -> String| {
                names
                    .entry(text)
                    .or_insert_with_key(|text| name(text))
                    .clone()
            };
        Ok(EvidenceNames {
            runs: run_places
                .into_iter()
                .map(|r| RunName {
                    id: r.id,
                    scenario: titles
                        .get(r.scenario_id.as_str())
                        .map_or_else(|| r.scenario_id.clone(), |t| (*t).to_string()),
                    number: r.number,
                })
                .collect(),
            sessions: session_places
                .into_iter()
                .map(|s| SessionName {
                    id: s.id,
                    persona: named(&mut personas, s.persona, stored_persona_name),
                    goal: named(&mut goals, s.goal, stored_goal_title),
                    ordinal: s.ordinal,
                })
                .collect(),
        })
    }

    /// The names of what `report` cites (its `evidence`), by id.
    ///
    /// A report cites the session of every judge finding; those are named
    /// from the names kept with the findings, the others looked up one by
    /// one (on a campaign of 100,000 sessions, looking up the 10,000
    /// reviewed ones was most of the report's time).
    pub async fn report_evidence(&self, report: &CampaignReport) -> Result<EvidenceNames> {
        let (runs, mut sessions) = cited(report);
        let reviewed = match &report.exploration {
            Some(e) if !e.findings.is_empty() => {
                self.store
                    .reviewed_session_names(report.campaign.id)
                    .await?
            }
            _ => Vec::new(),
        };
        let reviewed: HashMap<SessionId, SessionName> = reviewed
            .into_iter()
            .filter(|s| sessions.binary_search(&s.id).is_ok())
            .map(|s| (s.id, s))
            .collect();
        sessions.retain(|id| !reviewed.contains_key(id));
        let titles = report
            .fixed
            .per_scenario
            .iter()
            .map(|s| (s.scenario_id.as_str(), s.title.as_str()))
            .collect();
        let mut names = self
            .evidence_names(report.campaign.id, &runs, &sessions, &titles)
            .await?;
        names.sessions.extend(reviewed.into_values());
        names.sessions.sort_unstable_by_key(|s| s.id);
        Ok(names)
    }
}
