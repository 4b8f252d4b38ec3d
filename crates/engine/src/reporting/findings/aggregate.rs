//! Folding a campaign's sessions into its findings: issues, judge
//! summary and findings, coverage.

use super::*;
use crate::domain::ids::{CampaignId, SessionId};

/// The exploration findings being added up, from tallies or from sessions.
pub(super) struct FindingsAcc {
    pub(super) f: ExplorationFindings,
    pub(super) issues: Vec<Issue>,
    pub(super) issue_index: HashMap<(IssueKind, String), usize>,
    /// Findings listed so far: session, dimension, text.
    pub(super) findings_seen: HashSet<(Uuid, Option<String>, String)>,
    pub(super) dims: BTreeMap<String, (f64, u32)>,
    pub(super) seeded_personas: Vec<String>,
    pub(super) seeded_goals: Vec<String>,
    pub(super) cells: BTreeMap<(String, String), CoverageCell>,
}

impl FindingsAcc {
    pub(super) fn new(seed_set: &SeedSet) -> Self {
        let mut f = ExplorationFindings::default();
        for s in SessionStatus::ALL {
            f.sessions_by_status.insert(s.as_str().into(), 0);
        }
        for k in crate::exploration::SimulatorFaultKind::ALL {
            f.simulator_fault_kinds
                .insert(k.as_str().into(), FaultCount::default());
        }
        f.coverage.persona_names = seed_set
            .personas
            .iter()
            .map(|p| (p.id.clone(), p.name.clone()))
            .collect();
        f.coverage.goal_titles = seed_set
            .goals
            .iter()
            .map(|g| (g.id.clone(), g.title.clone()))
            .collect();
        FindingsAcc {
            f,
            issues: Vec::new(),
            issue_index: HashMap::new(),
            findings_seen: HashSet::new(),
            dims: BTreeMap::new(),
            seeded_personas: seed_set.personas.iter().map(|p| p.id.clone()).collect(),
            seeded_goals: seed_set.goals.iter().map(|g| g.id.clone()).collect(),
            cells: BTreeMap::new(),
        }
    }

    pub(super) fn sessions(&mut self, g: SessionGroup<'_>) {
        let (f, n) = (&mut self.f, g.sessions);
        f.sessions_total += n;
        *f.sessions_by_status.entry(g.status.into()).or_default() += n;
        if let Some(r) = g.end_reason {
            *f.sessions_by_end_reason
                .entry(r.as_str().into())
                .or_default() += n;
        }
        *f.sessions_by_trigger
            .entry(g.trigger.as_str().into())
            .or_default() += n;
        if g.simulator_fault {
            f.simulator_faults += n;
        }
        let (records, achieved) = g.goal_counts();
        f.records += records;
        f.goals_achieved += achieved;
        if g.has_experience {
            *f.emotions.entry(g.emotion.into()).or_default() += n;
        }
        match g.judge_status {
            "done" => f.judge.reviewed += n,
            "failed" => f.judge.failed += n,
            "pending" => f.judge.pending += n,
            _ => {}
        }
        match g.seed {
            Some((persona, goal)) => {
                let cell = self
                    .cells
                    .entry((persona.to_string(), goal.to_string()))
                    .or_insert_with(|| CoverageCell {
                        persona_id: persona.to_string(),
                        goal_id: goal.to_string(),
                        sessions: 0,
                        achieved: 0,
                        issues: 0,
                        production: 0,
                    });
                cell.sessions += n;
                if g.goal_achieved {
                    cell.achieved += n;
                }
                cell.issues += g.issues;
            }
            None => f.coverage.unseeded_sessions += n,
        }
    }

    /// An issue reported by `sessions` sessions in the phrasings `texts`
    /// (`text` first), the first of the sessions listed.
    pub(super) fn issue(
        &mut self,
        kind: IssueKind,
        key: String,
        text: &str,
        texts: &[String],
        sessions: u32,
        ids: &[SessionId],
    ) {
        let issues = &mut self.issues;
        let i = *self
            .issue_index
            .entry((kind, key.clone()))
            .or_insert_with(|| {
                issues.push(Issue {
                    kind,
                    key,
                    text: text.to_string(),
                    msg: None,
                    texts: Vec::new(),
                    count: 0,
                    session_ids: Vec::new(),
                });
                issues.len() - 1
            });
        let issue = &mut issues[i];
        issue.count += sessions;
        let room = ISSUE_SESSIONS_LISTED.saturating_sub(issue.session_ids.len());
        issue.session_ids.extend(ids.iter().take(room));
        // Each phrasing as reported; a built-in virtual user's issue is also
        // one message, read in the reader's language (its counts a range).
        for reported in std::iter::once(text).chain(texts.iter().map(String::as_str)) {
            if issue.texts.len() < ISSUE_TEXTS_LISTED && !issue.texts.iter().any(|x| x == reported)
            {
                issue.texts.push(reported.to_string());
            }
        }
        issue.msg =
            crate::domain::issue_keys::issue_message(issue.texts.iter().map(String::as_str));
    }

    /// `sessions` sessions with `faults` faults of `kind`.
    pub(super) fn faults(&mut self, kind: &str, sessions: u32, faults: u32) {
        let c = self.f.simulator_fault_kinds.entry(kind.into()).or_default();
        c.sessions += sessions;
        c.faults += faults;
    }

    /// A judge finding, unless the session's review already gave it.
    pub(super) fn finding(&mut self, f: JudgeFinding) {
        if self
            .findings_seen
            .insert((f.session_id.into(), f.dimension.clone(), f.text.to_key()))
        {
            self.f.findings.push(f);
        }
    }

    /// A judge that reviewed some of the sessions.
    pub(super) fn judge_model(&mut self, name: &str) {
        let name = name.trim();
        if !name.is_empty() && !self.f.judge_models.iter().any(|m| m == name) {
            self.f.judge_models.push(name.to_string());
        }
    }

    pub(super) fn score(&mut self, name: &str, sum: f64, count: u32) {
        let d = self.dims.entry(name.to_string()).or_default();
        d.0 += sum;
        d.1 += count;
    }

    /// `None` when the campaign has no session.
    pub(super) fn finish(self) -> Option<ExplorationFindings> {
        (self.f.sessions_total > 0).then(|| self.build())
    }

    /// The figures, zeros and an empty grid of the seeds' cells included.
    fn build(self) -> ExplorationFindings {
        let FindingsAcc {
            mut f,
            mut issues,
            dims,
            seeded_personas: mut personas,
            seeded_goals: mut goals,
            mut cells,
            ..
        } = self;
        f.goal_achievement_rate =
            (f.records > 0).then(|| f64::from(f.goals_achieved) / f64::from(f.records));
        issues.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| (a.kind as u8).cmp(&(b.kind as u8)))
                .then_with(|| a.text.cmp(&b.text))
        });
        f.issues = issues;
        f.findings.sort_by_key(|x| severity_rank(&x.severity));
        f.trajectory_kinds = trajectory_kinds(&f.findings);
        f.judge_models.sort();
        f.judge.dimensions = dims
            .into_iter()
            .map(|(name, (sum, count))| {
                let average = sum / f64::from(count);
                (name, DimensionScore { average, count })
            })
            .collect();
        // Personas and goals outside the seed set follow it, by id.
        let extra = |known: &Vec<String>, ids: Vec<&String>| -> Vec<String> {
            let mut ids: Vec<String> = ids
                .into_iter()
                .filter(|id| !known.contains(id))
                .cloned()
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        let more_personas = extra(&personas, cells.keys().map(|(p, _)| p).collect());
        let more_goals = extra(&goals, cells.keys().map(|(_, g)| g).collect());
        personas.extend(more_personas);
        goals.extend(more_goals);
        for p in &personas {
            for g in &goals {
                let cell = cells
                    .remove(&(p.clone(), g.clone()))
                    .unwrap_or(CoverageCell {
                        persona_id: p.clone(),
                        goal_id: g.clone(),
                        sessions: 0,
                        achieved: 0,
                        issues: 0,
                        production: 0,
                    });
                f.coverage.cells.push(cell);
            }
        }
        f.coverage.personas = personas;
        f.coverage.goals = goals;
        f
    }
}

/// The trajectory findings per kind (the message's key, less `judge-`),
/// good ones left out: sessions with one, and findings.
fn trajectory_kinds(findings: &[JudgeFinding]) -> BTreeMap<String, FaultCount> {
    let mut kinds: BTreeMap<String, (HashSet<SessionId>, u32)> = BTreeMap::new();
    for f in findings {
        if f.dimension.as_deref() != Some("trajectory") || f.severity == "good" {
            continue;
        }
        // A judge model's own words are of no kind of the catalogue.
        let kind = match &f.text {
            crate::i18n::Text::Msg(m) => m.key.strip_prefix("judge-").unwrap_or(&m.key),
            _ => "other",
        };
        let (sessions, count) = kinds.entry(kind.to_string()).or_default();
        sessions.insert(f.session_id);
        *count += 1;
    }
    kinds
        .into_iter()
        .map(|(kind, (sessions, faults))| {
            let sessions = sessions.len() as u32;
            (kind, FaultCount { sessions, faults })
        })
        .collect()
}

/// The exploration block of a campaign that has not explored yet: no
/// session, every cell of `seed_set` empty (the grid production is placed
/// on).
pub fn unexplored(seed_set: &SeedSet) -> ExplorationFindings {
    FindingsAcc::new(seed_set).build()
}

/// Aggregates a campaign's sessions, in start order; `None` when there is
/// none. The report reads the same figures from tallies kept as sessions
/// change (see [`Platform::exploration_findings`]).
pub fn aggregate(seed_set: &SeedSet, sessions: &[SessionFacts]) -> Option<ExplorationFindings> {
    let mut acc = FindingsAcc::new(seed_set);
    for s in sessions {
        // A session the virtual user could not carry, or in which the check
        // found a simulator fault, is the simulator's fault: its record
        // says nothing about the target, so it stays out of the
        // achievement rate, the emotions, the issues and the scores.
        let simulator_error =
            s.end_reason == Some(EndReason::SimulatorError) || !s.simulator_faults.is_empty();
        let counted = s.experience.as_ref().filter(|_| !simulator_error);
        let mut kinds: BTreeMap<&str, u32> = BTreeMap::new();
        for fault in &s.simulator_faults {
            *kinds.entry(fault.kind.as_str()).or_default() += 1;
        }
        for (kind, n) in kinds {
            acc.faults(kind, 1, n);
        }
        if let Some(e) = counted {
            for (kind, key, text) in reported_issues(e) {
                acc.issue(kind, key, &text, &[], 1, &[s.id]);
            }
        }
        let review = s.judge_review.as_ref().filter(|_| s.judge_status == "done");
        if let Some(review) = review {
            if s.simulator_faults.is_empty() {
                for (name, score) in review_scores(review) {
                    acc.score(&name, score, 1);
                }
            }
            if let Some(findings) = review.get("findings") {
                for f in review_findings(s.id, findings) {
                    acc.finding(f);
                }
            }
            if let Some(judge) = review_judge(review) {
                acc.judge_model(&judge);
            }
        }
        acc.sessions(SessionGroup {
            status: s.status.as_str(),
            end_reason: s.end_reason,
            trigger: s.trigger,
            judge_status: &s.judge_status,
            seed: s
                .seed_ref
                .as_ref()
                .map(|r| (r.persona_id.as_str(), r.goal_id.as_str())),
            has_experience: counted.is_some(),
            record: counted.is_some() && s.status == SessionStatus::Completed,
            goal_achieved: s.experience.as_ref().is_some_and(|e| e.goal_achieved),
            emotion: counted.map_or("", |e| e.emotion.as_str()),
            simulator_fault: simulator_error || review.is_some_and(simulator_at_fault),
            sessions: 1,
            issues: counted.map_or(0, issue_count),
        });
    }
    acc.finish()
}

/// The exploration block of a campaign's report, from the tallies that
/// migration 0009 keeps and the reviewed sessions' findings, read in a
/// snapshot (see [`crate::store::Store::snapshot`]); `None` for an unknown
/// campaign.
pub(super) fn campaign_findings(
    read: &Read<'_>,
    campaign_id: CampaignId,
) -> Result<Option<ExplorationFindings>> {
    let Some(seed_set) = read.campaign_seed_set(campaign_id)? else {
        return Ok(None);
    };
    let mut acc = FindingsAcc::new(&seed_set);
    read.session_tallies(campaign_id, |group| acc.sessions(group))?;
    read.fault_tallies(campaign_id, |kind, sessions, faults| {
        acc.faults(kind, sessions, faults)
    })?;
    read.dimension_tallies(campaign_id, |name, sum, count| acc.score(name, sum, count))?;
    read.issue_tallies(campaign_id, |kind, key, text, texts, sessions, ids| {
        acc.issue(kind, key, text, texts, sessions, ids)
    })?;
    read.judge_findings(campaign_id, |finding| acc.finding(finding))?;
    read.session_judges(campaign_id, |judge| acc.judge_model(judge))?;
    Ok(acc.finish())
}

impl Platform {
    /// The exploration block of a campaign's report; `None` for an unknown
    /// campaign.
    pub async fn exploration_findings(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Option<ExplorationFindings>> {
        self.store
            .snapshot(move |read| campaign_findings(read, campaign_id))
            .await
    }
}
