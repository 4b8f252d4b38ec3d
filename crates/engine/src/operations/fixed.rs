//! The fixed-plan engine: executes due runs of fixed scenarios, persisting
//! every turn as it happens, and moves campaigns through their window.
//!
//! Restart-safe: a run is claimed atomically (`pending -> running`) before
//! it executes, so it is never executed twice; on start, runs left
//! `running` by a crash are marked `error` / `interrupted` (their committed
//! turns are kept), and whatever became due while the engine was down runs.

use crate::campaign::CampaignStatus;
use crate::channel::{Channel, ChatMessage, ChatRequest};
use crate::checks::{TurnContext, key_field_coverage, run_checks};
use crate::clock::to_ms;
use crate::domain::ids::{CampaignId, RunId};
pub use crate::domain::run::{CheckResult, Run, RunMetrics, RunTurn, Verdict};
use crate::domain::tally::RunOutcome;
use crate::error::{Error, ErrorCode, Result};
use crate::exchange::ToolEnv;
use crate::office::Workspace;
use crate::platform::{Event, Platform};
use crate::store::writer::{ClaimedRow, Committed, FinishRow, TurnRow, Write};
use crate::target::Target;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// A run and its turns (`GET /api/runs/{id}`, MCP's `get_run`).
#[derive(Debug, Clone, serde::Serialize, specta::Type, utoipa::ToSchema)]
pub struct RunWithTurns {
    pub run: Run,
    pub turns: Vec<RunTurn>,
}

/// What playing a run gave.
struct Played {
    verdict: Verdict,
    checks: Vec<CheckResult>,
    metrics: RunMetrics,
    /// Why the run is an error.
    reason: Option<String>,
    /// Of every reply stored; `None` when not known.
    latencies: Option<Vec<i64>>,
}

impl Played {
    /// A run in error before any reply.
    fn error(reason: String) -> Self {
        Played {
            verdict: Verdict::Error,
            checks: Vec::new(),
            metrics: RunMetrics::default(),
            reason: Some(reason),
            latencies: Some(Vec::new()),
        }
    }
}

/// What the runs of one campaign execute against, or why they cannot.
struct RunContext {
    /// The target and its channel, else why not and whether it is the
    /// database that could not answer (the runs are then left to be
    /// played again, never failed for it).
    resolved: std::result::Result<(Target, Arc<dyn Channel>), (String, bool)>,
}

/// Marks a run as played by this worker while it lives: only those runs'
/// leases are renewed, so that a run whose play ended without its verdict
/// (the database went away) is taken over once its lease expires.
struct Playing<'p> {
    runs: &'p std::sync::Mutex<std::collections::HashSet<uuid::Uuid>>,
    id: uuid::Uuid,
}

impl<'p> Playing<'p> {
    fn start(
        runs: &'p std::sync::Mutex<std::collections::HashSet<uuid::Uuid>>,
        id: uuid::Uuid,
    ) -> Self {
        runs.lock().unwrap_or_else(|e| e.into_inner()).insert(id);
        Self { runs, id }
    }
}

impl Drop for Playing<'_> {
    fn drop(&mut self) {
        self.runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
    }
}

/// What one scheduler step did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tick {
    pub started_campaigns: u32,
    pub runs_executed: u32,
    pub finalized_campaigns: u32,
}

/// Most runs executing at once across all targets; each target's own
/// concurrency limit applies inside its channel.
pub const MAX_RUNS_IN_FLIGHT: usize = 1024;
/// Runs claimed per request slot of the most concurrent running target:
/// while some runs wait for the target, others are checked and committed,
/// so a fast target needs several claimed runs per slot to stay busy. A
/// slow target's runs are not claimed far ahead: a crash marks claimed runs
/// `interrupted`, and that should be no more than a few per slot.
pub const RUNS_PER_SLOT: usize = 16;

/// A run's error reason when its target failed: the kind, and the failure
/// in the reader's words, as the connection test says it (the client's
/// own words go to the log).
fn target_error(e: &crate::channel::ChannelError, target: &Target) -> String {
    tracing::warn!(target = %target.id, error = %e, "a run's target failed");
    let (said, _) = crate::target_probe::plain_words(e, &target.channel);
    format!("target_error: {}", crate::i18n::Text::Msg(said).to_key())
}

/// The failed result of a turn whose target was still calling tools at
/// its step limit; it points at the turn's last step.
fn step_limit_reached(turn: usize, max: u32, steps: usize) -> CheckResult {
    CheckResult {
        turn: turn as u32,
        kind: crate::domain::run::STEP_LIMIT.into(),
        passed: false,
        detail: crate::msg!("check-step-limit", max = max).into(),
        score: None,
        judged_by: None,
        step: (steps > 0).then_some(steps as u32),
    }
}

impl Platform {
    /// Marks runs cut mid-flight by a crash as `error` / `interrupted`.
    /// Their committed turns stay, and the workspace copies a crashed
    /// process left are removed. Returns how many runs were marked.
    pub async fn recover_interrupted_runs(&self) -> Result<u64> {
        // The workspace copies of runs a crash cut are removed too.
        let swept =
            tokio::task::spawn_blocking(|| crate::office::sweep_left_behind(&std::env::temp_dir()))
                .await
                .unwrap_or_default();
        if swept > 0 {
            tracing::warn!(
                copies = swept,
                "removed workspace copies a crashed process left behind"
            );
        }
        let now = self.clock.now();
        let n = self
            .store
            .transact(move |tx| tx.finish_interrupted_runs(now))
            .await?;
        if n > 0 {
            tracing::warn!(runs = n, "marked runs cut by a restart as interrupted");
        }
        Ok(n)
    }

    /// Renews the leases of the runs this worker plays, so that the other
    /// workers sharing the database leave them alone (see the scheduler);
    /// returns how many it holds.
    pub async fn renew_run_leases(&self) -> Result<u64> {
        let playing: Vec<uuid::Uuid> = self
            .playing_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .copied()
            .collect();
        if playing.is_empty() {
            return Ok(0);
        }
        self.store
            .renew_run_leases(self.clock.now(), &playing)
            .await
    }

    /// One scheduler step: starts campaigns whose window began, executes
    /// every due run (waiting for them), finalizes campaigns whose window
    /// ended and whose runs are done.
    ///
    /// Runs execute as a pipeline of at most [`MAX_RUNS_IN_FLIGHT`], and at
    /// most [`RUNS_PER_SLOT`] per request slot of the most concurrent
    /// running target: due runs are claimed in batches whenever half of
    /// those places are free, and each campaign's target and channel are
    /// looked up once per step.
    pub async fn tick(self: &Arc<Self>) -> Result<Tick> {
        let mut tick = Tick::default();
        let started = self.store.start_due_campaigns(self.clock.now()).await?;
        tick.started_campaigns = started.len() as u32;
        for id in started {
            self.notify(Event::CampaignChanged {
                campaign_id: CampaignId(id),
            });
        }

        let slots = self.store.most_concurrency_running().await?;
        let most_in_flight =
            (slots.unwrap_or(1).max(1) as usize * RUNS_PER_SLOT).min(MAX_RUNS_IN_FLIGHT);
        let mut contexts: HashMap<CampaignId, Arc<RunContext>> = HashMap::new();
        let mut in_flight = tokio::task::JoinSet::new();
        let mut more_due = true;
        loop {
            if more_due && in_flight.len() <= most_in_flight / 2 {
                // A failed claim stops claiming for this step, never the
                // runs already executing: dropping them would abort them.
                let claimed = match self.claim_due_runs(most_in_flight - in_flight.len()).await {
                    Ok(c) => c,
                    Err(e) => {
                        tracing::error!(error = ?e, "could not claim due runs");
                        Vec::new()
                    }
                };
                more_due = !claimed.is_empty();
                for run in claimed {
                    let context = match contexts.get(&run.campaign_id) {
                        Some(c) => c.clone(),
                        None => {
                            let c = Arc::new(self.run_context(run.campaign_id).await);
                            contexts.insert(run.campaign_id, c.clone());
                            c
                        }
                    };
                    let platform = self.clone();
                    in_flight.spawn(async move { platform.execute_claimed(run, &context).await });
                }
            }
            match in_flight.join_next().await {
                None => break,
                Some(Ok(Ok(_))) => tick.runs_executed += 1,
                Some(Ok(Err(e))) => {
                    tick.runs_executed += 1;
                    tracing::error!(error = ?e, "run failed to execute");
                }
                Some(Err(e)) => tracing::error!(error = ?e, "run task failed"),
            }
        }

        let ending = self.store.campaigns_to_finalize(self.clock.now()).await?;
        for id in ending {
            self.finalize_campaign(CampaignId(id)).await?;
            tick.finalized_campaigns += 1;
        }
        Ok(tick)
    }

    /// Claims up to `limit` due runs (`pending -> running`) in one
    /// statement, oldest first, through the group-commit writer.
    async fn claim_due_runs(&self, limit: usize) -> Result<Vec<ClaimedRow>> {
        self.store
            .claim_due_runs(limit, to_ms(self.clock.now()))
            .await
    }

    /// The target and channel of a campaign's runs; a failure becomes every
    /// run's error reason.
    async fn run_context(&self, campaign_id: CampaignId) -> RunContext {
        let resolved = async {
            let campaign = self.get_campaign(campaign_id).await?;
            let target = self.get_target(campaign.target_id).await?;
            let channel = self.channel_for(target.id).await?;
            Ok::<_, Error>((target, channel))
        }
        .await;
        RunContext {
            resolved: resolved.map_err(|e| {
                let unavailable = e.code() == ErrorCode::DatabaseUnavailable;
                (e.body.message, unavailable)
            }),
        }
    }

    /// Executes one run if it is still pending: claims it, plays the
    /// scenario's turns against the target, persists each turn as it
    /// happens, evaluates the checks and records the verdict.
    #[tracing::instrument(skip(self))]
    pub async fn execute_run(&self, run_id: RunId) -> Result<Option<Verdict>> {
        let Some(run) = self.store.claim_run(run_id, self.clock.now()).await? else {
            return Ok(None); // already claimed elsewhere, or not pending
        };
        let context = self.run_context(run.campaign_id).await;
        self.execute_claimed(run, &context).await.map(Some)
    }

    /// Executes these runs now, each if still pending (see
    /// [`Platform::execute_run`]), at most `limit` at once, calling `done`
    /// as each ends. Each campaign's target and channel are looked up once,
    /// as in [`Platform::tick`]: a campaign holds its whole plan, and
    /// reading it again for every run made N runs cost N plans.
    pub async fn execute_runs(
        self: &Arc<Self>,
        ids: Vec<RunId>,
        limit: usize,
        mut done: impl FnMut(Result<Option<Verdict>>),
    ) {
        type Contexts = tokio::sync::Mutex<HashMap<CampaignId, Arc<RunContext>>>;
        let contexts: Arc<Contexts> = Arc::default();
        let mut pending = ids.into_iter();
        let mut in_flight = tokio::task::JoinSet::new();
        loop {
            while in_flight.len() < limit.max(1) {
                let Some(id) = pending.next() else { break };
                let (platform, contexts) = (self.clone(), contexts.clone());
                in_flight.spawn(async move {
                    let Some(run) = platform.store.claim_run(id, platform.clock.now()).await?
                    else {
                        return Ok(None);
                    };
                    let context = {
                        let mut known = contexts.lock().await;
                        match known.get(&run.campaign_id) {
                            Some(c) => c.clone(),
                            None => {
                                let c = Arc::new(platform.run_context(run.campaign_id).await);
                                known.insert(run.campaign_id, c.clone());
                                c
                            }
                        }
                    };
                    platform.execute_claimed(run, &context).await.map(Some)
                });
            }
            match in_flight.join_next().await {
                None => break,
                Some(Ok(result)) => done(result),
                Some(Err(e)) => done(Err(Error::internal(e))),
            }
        }
    }

    /// Plays a claimed run and commits its verdict.
    async fn execute_claimed(&self, run: ClaimedRow, context: &RunContext) -> Result<Verdict> {
        if run.attempt > 1 {
            tracing::warn!(run = %run.id, attempt = run.attempt,
                "a run whose worker stopped is played again (its lease expired)");
        }
        let _playing = Playing::start(&self.playing_runs, run.id);
        let played = match &context.resolved {
            Ok((target, channel)) => self.play_run(&run, target, channel.as_ref()).await,
            Err((why, true)) => Err(Error::database_unavailable(
                "down",
                anyhow::anyhow!("looking up the run's target: {why}"),
            )),
            Err((reason, false)) => Ok(Played::error(reason.clone())),
        };
        let Played {
            mut verdict,
            checks,
            metrics,
            reason,
            latencies,
        } = match played {
            Ok(played) => played,
            // The run is no fault of the target's: it is left running,
            // unrenewed, and played again once its lease expires.
            Err(e) if e.code() == ErrorCode::DatabaseUnavailable => {
                tracing::warn!(run = %run.id, error = ?e.cause,
                    "the database went away mid-run; the run is played again after its lease");
                return Err(e);
            }
            Err(e) => {
                tracing::error!(run = %run.id, error = ?e, "run aborted by an internal error");
                // Some replies may be stored: their latencies are read back.
                Played {
                    latencies: None,
                    ..Played::error("internal_error".into())
                }
            }
        };
        // Turns were queued before the verdict and are committed with it
        // or before it (see `writer`).
        let finish = FinishRow {
            id: run.id,
            verdict,
            check_results: serde_json::to_string(&checks)?,
            metrics: serde_json::to_string(&metrics)?,
            error_reason: reason,
            finished_at: to_ms(self.clock.now()),
            attempt: run.attempt,
            outcome: Box::new(RunOutcome::new(
                run.campaign_id,
                run.scenario_id,
                run.offset_ms,
                Some(&metrics),
                checks,
                latencies,
            )),
        };
        let committed = self
            .store
            .enqueue(Write::Finish(finish))
            .committed()
            .await?;
        if committed == Committed::TurnsMissing {
            verdict = Verdict::Error;
        }
        self.notify(Event::RunFinished {
            campaign_id: run.campaign_id,
            run_id: RunId(run.id),
        });
        Ok(verdict)
    }

    async fn play_run(
        &self,
        run: &ClaimedRow,
        target: &Target,
        channel: &dyn Channel,
    ) -> Result<Played> {
        let (campaign_id, scenario_id) = (run.campaign_id, &*run.scenario_id);
        let mut metrics = RunMetrics {
            steps: Some(0),
            ..RunMetrics::default()
        };
        let Some(scenario) = self.scenarios.get(scenario_id) else {
            return Ok(Played::error(format!(
                "scenario {scenario_id} is not loaded"
            )));
        };
        let workspace = match self.run_workspace(&scenario).await {
            Ok(w) => w,
            Err(said) => {
                return Ok(Played::error(format!(
                    "workspace_error: {}",
                    crate::i18n::Text::Msg(said).to_key()
                )));
            }
        };
        let env = ToolEnv {
            facts: &scenario.facts,
            workspace: workspace.as_ref(),
        };
        // The request is the conversation so far; it grows turn by turn.
        let mut request = ChatRequest {
            messages: scenario.system.iter().map(ChatMessage::system).collect(),
            tools: scenario.tools.clone(),
        };
        let mut results = Vec::new();
        let mut latencies = Vec::new();
        let mut replies: Vec<String> = Vec::new();
        // The documents' texts after each turn: key fields count there too.
        let mut produced: Vec<String> = Vec::new();
        let mut seq = 0u32;
        let mut ended_early = false;
        for (i, turn) in scenario.turns.iter().enumerate() {
            request.messages.push(ChatMessage::user(&turn.user));
            self.queue_run_turn(run, seq, "user", &turn.user, None, &[])?;
            seq += 1;
            let asked = request.messages.len();
            let max_steps = scenario.max_steps(i);
            let mut exchanged = match self
                .exchange(campaign_id.into(), channel, &mut request, max_steps, env)
                .await
            {
                Ok(e) => e,
                Err(broken) => {
                    // What the target did before it failed stays to be read.
                    if !broken.steps.is_empty() {
                        self.queue_run_turn(run, seq, "target", "", None, &broken.steps)?;
                    }
                    return Ok(Played {
                        checks: results,
                        metrics,
                        latencies: Some(latencies),
                        ..Played::error(target_error(&broken.error, target))
                    });
                }
            };
            *metrics.steps.get_or_insert(0) += exchanged.steps.len() as u32;
            let (documents, files) = match &workspace {
                Some(w) => (w.documents(), w.files_matching("**/*")),
                None => Default::default(),
            };
            // What the target did in the turn is checked before the calls
            // it ended on are answered for the next turn.
            let ctx = TurnContext {
                scenario: &scenario,
                turn: i,
                history: &request.messages[..asked],
                reply: &exchanged.reply,
                steps: &exchanged.steps,
                documents: &documents,
                files: &files,
            };
            results.extend(run_checks(&turn.checks, &ctx, None).await);
            produced.extend(documents.into_iter().map(|d| d.text));
            if i + 1 < scenario.turns.len() && exchanged.step_limit.is_none() {
                exchanged.carry_on(&mut request);
            }
            let reply = &exchanged.reply;
            self.queue_run_turn(
                run,
                seq,
                "target",
                &reply.content,
                Some(reply),
                &exchanged.steps,
            )?;
            seq += 1;
            latencies.push(reply.latency_ms as i64);
            metrics.turns += 1;
            metrics.latency_ms_total += reply.latency_ms;
            metrics.latency_ms_max = metrics.latency_ms_max.max(reply.latency_ms);
            if let Some(u) = reply.usage {
                metrics.tokens_in += u64::from(u.tokens_in);
                metrics.tokens_out += u64::from(u.tokens_out);
            }
            replies.push(exchanged.reply.content);
            if let Some(max) = exchanged.step_limit {
                // The run ends here, failed: the target never answered.
                results.push(step_limit_reached(i, max, exchanged.steps.len()));
                ended_early = true;
                break;
            }
        }
        metrics.completed = !ended_early;
        metrics.cost = (metrics.tokens_in as f64 * target.price_in_per_mtok
            + metrics.tokens_out as f64 * target.price_out_per_mtok)
            / 1_000_000.0;
        let refs: Vec<&str> = replies
            .iter()
            .chain(&produced)
            .map(String::as_str)
            .collect();
        metrics.key_field_coverage = key_field_coverage(&scenario, &refs);
        metrics.produced = scenario.asks_for_output().then(|| {
            results
                .iter()
                .filter(|r| matches!(r.kind.as_str(), "document" | "file_exists"))
                .all(|r| r.passed)
        });
        let verdict = if results.iter().all(|r| r.passed) {
            Verdict::Passed
        } else {
            Verdict::Failed
        };
        Ok(Played {
            verdict,
            checks: results,
            metrics,
            reason: None,
            latencies: Some(latencies),
        })
    }

    /// A run's private copy of its scenario's workspace, made off the async
    /// threads; `None` for a scenario without one.
    async fn run_workspace(
        &self,
        scenario: &crate::scenario::Scenario,
    ) -> std::result::Result<Option<Arc<Workspace>>, crate::i18n::Msg> {
        let Some(workspace) = &scenario.workspace else {
            return Ok(None);
        };
        let Some(source) = crate::scenario::workspace_source(scenario) else {
            return Err(crate::msg!(
                "workspace-missing",
                folder = workspace.folder.as_str()
            ));
        };
        let lang = crate::scenario::scenario_lang(scenario);
        let copied = tokio::task::spawn_blocking(move || Workspace::copy_of(&source, lang)).await;
        match copied {
            Ok(Ok(w)) => Ok(Some(Arc::new(w))),
            Ok(Err(e)) => Err(crate::msg!("workspace-copy-failed", cause = e.to_string())),
            Err(e) => Err(crate::msg!("workspace-copy-failed", cause = e.to_string())),
        }
    }

    /// Queues one turn for the group commit (committed before or with the
    /// run's verdict): a target turn with its reply's unanswered calls and
    /// the steps before it.
    fn queue_run_turn(
        &self,
        run: &ClaimedRow,
        seq: u32,
        role: &'static str,
        content: &str,
        reply: Option<&crate::channel::ChatReply>,
        steps: &[crate::domain::steps::Step],
    ) -> Result<()> {
        let usage = reply.and_then(|r| r.usage);
        let tool_calls = reply.map_or(&[][..], |r| &r.tool_calls);
        let turn = TurnRow {
            run_id: RunId(run.id),
            attempt: run.attempt,
            seq: i64::from(seq),
            role,
            content: content.to_string(),
            latency_ms: reply.map(|r| r.latency_ms as i64),
            tokens_in: usage.map(|u| i64::from(u.tokens_in)),
            tokens_out: usage.map(|u| i64::from(u.tokens_out)),
            tool_calls: if tool_calls.is_empty() {
                None
            } else {
                Some(serde_json::to_string(tool_calls)?)
            },
            steps: if steps.is_empty() {
                None
            } else {
                Some(serde_json::to_string(steps)?)
            },
            created_at: to_ms(self.clock.now()),
        };
        self.store.queue(Write::Turn(turn));
        Ok(())
    }

    /// The runs of a campaign in plan order.
    pub async fn list_runs(&self, campaign_id: CampaignId) -> Result<Vec<Run>> {
        self.store.campaign_runs(campaign_id).await
    }

    /// One run with its conversation: each turn, the steps of an agent
    /// that acts, and the checks' results.
    pub async fn get_run(&self, run_id: RunId) -> Result<RunWithTurns> {
        let run = self.store.run(run_id).await?;
        let turns = self.store.run_turns(run_id).await?;
        Ok(RunWithTurns { run, turns })
    }

    /// One run's conversation.
    pub async fn run_turns(&self, run_id: RunId) -> Result<Vec<RunTurn>> {
        self.store.run_turns(run_id).await
    }

    /// Runs the scheduler until every campaign in `campaign_ids` is
    /// finalized, sleeping `poll` between steps (the demo uses this with a
    /// progress callback).
    pub async fn run_until_finalized(
        self: &Arc<Self>,
        campaign_ids: &[CampaignId],
        poll: Duration,
        mut progress: impl FnMut(&Tick),
    ) -> Result<()> {
        loop {
            let t = self.tick().await?;
            progress(&t);
            let mut all_done = true;
            for id in campaign_ids {
                let c = self.get_campaign(CampaignId((*id).into())).await?;
                if !matches!(
                    c.status,
                    CampaignStatus::Finalized | CampaignStatus::Cancelled
                ) {
                    all_done = false;
                }
            }
            if all_done {
                return Ok(());
            }
            tokio::time::sleep(poll).await;
        }
    }
}
