//! The tools an exploration session is offered: those of the scenario its
//! campaign names as its tool environment (declared responses, and the
//! office tools over the scenario's workspace), played by the same
//! exchange as a fixed run's. Each session plays in its own copy of the
//! workspace, kept from its first message until it ends on this process.

use crate::channel::{ChatReply, ChatRequest};
use crate::domain::ids::{CampaignId, SessionId};
use crate::domain::steps::{DEFAULT_MAX_STEPS, Step};
use crate::error::Result;
use crate::exchange::ToolEnv;
use crate::i18n::Msg;
use crate::office::Workspace;
use crate::platform::Platform;
use crate::scenario::Scenario;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What this process knows of sessions' tools.
#[derive(Default)]
pub struct SessionTools {
    /// Each campaign's tool environment, as created (it never changes).
    envs: Mutex<HashMap<CampaignId, Option<String>>>,
    /// Each running session's copy of its workspace.
    workspaces: Mutex<HashMap<SessionId, Arc<Workspace>>>,
}

/// The tools of a session's turn: the scenario that offers them, and the
/// session's copy of its workspace, if it has one.
pub(crate) struct SessionEnv {
    pub scenario: Arc<Scenario>,
    pub workspace: Option<Arc<Workspace>>,
}

impl Platform {
    /// The tools a session of `campaign_id` is offered for its next turn;
    /// `None` when its campaign names no tool environment, or the one it
    /// names is no longer loaded (logged: the session talks without tools).
    pub(crate) async fn session_env(
        &self,
        campaign_id: CampaignId,
        session_id: SessionId,
    ) -> Result<Option<SessionEnv>> {
        let Some(scenario) = self.tool_env_scenario(campaign_id).await? else {
            return Ok(None);
        };
        let workspace = match self.session_workspace(session_id, &scenario).await {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!(%session_id, error = %e, "the session's workspace could not be copied; it is offered the scenario's tools without it");
                None
            }
        };
        Ok(Some(SessionEnv {
            scenario,
            workspace,
        }))
    }

    /// The names of the tools sessions of `campaign_id` are offered, and
    /// their step limit (none without a tool environment).
    pub(crate) async fn session_tool_names(
        &self,
        campaign_id: CampaignId,
    ) -> Result<(Vec<String>, Option<u32>)> {
        Ok(match self.tool_env_scenario(campaign_id).await? {
            Some(s) => (
                s.tools.iter().map(|t| t.name.clone()).collect(),
                Some(s.max_steps(0)),
            ),
            None => (Vec::new(), None),
        })
    }

    /// The scenario a campaign names as its sessions' tool environment, if
    /// it names one that is loaded.
    async fn tool_env_scenario(&self, campaign_id: CampaignId) -> Result<Option<Arc<Scenario>>> {
        let known = lock(&self.session_tools.envs).get(&campaign_id).cloned();
        let env = match known {
            Some(env) => env,
            None => {
                let env = self.store.campaign_tool_env(campaign_id).await?;
                lock(&self.session_tools.envs).insert(campaign_id, env.clone());
                env
            }
        };
        let Some(id) = env else {
            return Ok(None);
        };
        let Some(scenario) = self.scenarios.get(&id) else {
            tracing::warn!(%campaign_id, scenario = %id,
                "the scenario named as the sessions' tool environment is not loaded; the session is offered no tools");
            return Ok(None);
        };
        Ok(Some(scenario))
    }

    /// The session's copy of the scenario's workspace, made on first use.
    async fn session_workspace(
        &self,
        session_id: SessionId,
        scenario: &Scenario,
    ) -> std::io::Result<Option<Arc<Workspace>>> {
        if let Some(w) = lock(&self.session_tools.workspaces).get(&session_id) {
            return Ok(Some(w.clone()));
        }
        let Some(source) = crate::scenario::workspace_source(scenario) else {
            return Ok(None);
        };
        let lang = crate::scenario::scenario_lang(scenario);
        let copied = tokio::task::spawn_blocking(move || Workspace::copy_of(&source, lang))
            .await
            .map_err(std::io::Error::other)??;
        let copied = Arc::new(copied);
        let kept = lock(&self.session_tools.workspaces)
            .entry(session_id)
            .or_insert(copied)
            .clone();
        Ok(Some(kept))
    }

    /// One user turn of a session with its target: the same loop as a
    /// fixed run's, with the campaign's tool environment if it names one
    /// (every call answered, the scenario's step limit); one ledger
    /// decision was taken for it, whatever the tool rounds. The reply and
    /// its steps, or why the target failed.
    pub(crate) async fn session_exchange(
        &self,
        campaign_id: CampaignId,
        session_id: SessionId,
        target_id: crate::domain::ids::TargetId,
        history: Vec<crate::channel::ChatMessage>,
    ) -> Result<std::result::Result<(ChatReply, Vec<Step>), Msg>> {
        let env = self.session_env(campaign_id, session_id).await?;
        let channel = match self.channel_for(target_id).await {
            Ok(channel) => channel,
            Err(e) => {
                tracing::warn!(target = %target_id, session = %session_id, error = %e,
                    "the target's channel cannot be opened");
                return Ok(Err(e.body.into_msgs().0));
            }
        };
        let mut request = ChatRequest {
            messages: history,
            tools: env
                .as_ref()
                .map(|e| e.scenario.tools.clone())
                .unwrap_or_default(),
        };
        let tools = ToolEnv {
            facts: env.as_ref().map_or(&[][..], |e| &e.scenario.facts),
            workspace: env.as_ref().and_then(|e| e.workspace.as_ref()),
        };
        let max_steps = env
            .as_ref()
            .map_or(DEFAULT_MAX_STEPS, |e| e.scenario.max_steps(0));
        let exchanged = self
            .exchange(
                campaign_id.into(),
                channel.as_ref(),
                &mut request,
                max_steps,
                tools,
            )
            .await;
        Ok(match exchanged {
            Ok(e) => Ok((e.reply, e.steps)),
            Err(broken) => Err(self
                .target_failure(target_id, session_id, &broken.error)
                .await),
        })
    }

    /// How many sessions' copies of a workspace this process holds.
    pub fn session_workspaces(&self) -> usize {
        lock(&self.session_tools.workspaces).len()
    }

    /// Removes a session's copy of its workspace: it ended.
    pub(crate) fn end_session_tools(&self, session_id: SessionId) {
        lock(&self.session_tools.workspaces).remove(&session_id);
    }

    /// Removes the copies of sessions that ended by any way this process
    /// did not see end (abandoned, expired with their window, closed on
    /// another worker); the scheduler calls it on each step.
    pub(crate) async fn prune_session_tools(&self) -> Result<()> {
        let held: Vec<SessionId> = lock(&self.session_tools.workspaces)
            .keys()
            .copied()
            .collect();
        for id in held {
            let running = match self.get_session(id).await {
                Ok(s) => s.status == crate::domain::session::SessionStatus::Running,
                Err(e) if e.code() == crate::error::ErrorCode::NotFound => false,
                Err(e) => return Err(e),
            };
            if !running {
                self.end_session_tools(id);
            }
        }
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
