//! Role models (岗位模型): which model plays the virtual user, the judge,
//! the analyst and the tool simulator. Each is any OpenAI-compatible
//! endpoint; none configured means offline, and every role has a built-in
//! fallback (persona engine, heuristic judge, template analysis; without a
//! tool simulator a call no declared response matches is answered
//! `NO_RESPONSE`).
//!
//! Headless configuration comes from the environment:
//! `AGENTEVAL_{USER,JUDGE,ANALYST,TOOLS}_BASE_URL`, `_MODEL`, `_API_KEY`,
//! `_TIMEOUT_MS` and `_MAX_TOKENS`. A role is configured when both its base
//! URL and model are set. The models in force live in [`LiveRoles`] on the
//! platform, so that a shell (the desktop app's settings) can replace them
//! while everything runs.

use crate::channel::openai::OpenAiChannel;
use crate::channel::{
    Channel, ChannelError, ChannelErrorKind, ChatMessage, ChatReply, ChatRequest,
};
use crate::structured::{OutputMode, OutputSchema};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// The analyst's input budget unless its role model says otherwise
/// (`input_tokens`: Settings, or `AGENTEVAL_ANALYST_INPUT_TOKENS`): room
/// for the answer in an 8,192-token context.
pub const DEFAULT_INPUT_TOKENS: usize = 4000;
/// The smallest budget taken: below it the digest holds too little to
/// analyse.
pub const MIN_INPUT_TOKENS: u32 = 500;

/// The budget in tokens: the analyst model's `input_tokens` when it is at
/// least [`MIN_INPUT_TOKENS`], else [`DEFAULT_INPUT_TOKENS`].
pub fn input_budget(configured: Option<u32>) -> usize {
    configured
        .filter(|&n| n >= MIN_INPUT_TOKENS)
        .map_or(DEFAULT_INPUT_TOKENS, |n| n as usize)
}

pub use crate::domain::models::Role;

/// Something that completes a chat for a role: the real client talks to an
/// OpenAI-compatible endpoint, tests inject [`FakeChatClient`].
#[async_trait::async_trait]
pub trait ChatClient: Send + Sync {
    /// One completion; the reply carries text, usage and the model name.
    async fn complete(&self, messages: &[ChatMessage]) -> Result<ChatReply, ChannelError>;

    /// One completion whose answer is a JSON object of `schema`, asked for
    /// in the strongest form the endpoint takes (see [`crate::structured`]).
    /// The reply is not checked here: callers read it with
    /// [`OutputSchema::read`]. Without structured outputs, the prompt alone.
    async fn complete_structured(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<StructuredReply, ChannelError> {
        let _ = schema;
        Ok(StructuredReply {
            reply: self.complete(messages).await?,
            mode: OutputMode::PromptOnly,
        })
    }

    /// The model identity recorded with what this client produced.
    fn model_name(&self) -> String;

    /// The endpoint it talks to (see [`crate::provenance::host_of`]);
    /// `None` for what runs in-process.
    fn endpoint(&self) -> Option<String> {
        None
    }
}

/// Where a role model lives. The key is either given (the desktop app
/// reads it from the OS keychain) or named by an environment variable.
#[derive(Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ModelConfig {
    pub base_url: String,
    pub model: String,
    /// Write-only: never serialized back out.
    #[serde(default, skip_serializing)]
    pub api_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Per-request timeout in milliseconds (default 60 s: small local
    /// models can be slow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Cap on each answer, sent as `max_tokens` (default per role, see
    /// [`Role::default_max_tokens`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// How many sessions this role works on at once (default
    /// [`DEFAULT_CONCURRENCY`]); the campaign's budget still decides how
    /// many sessions there are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// The analyst only: the token budget of the report digest it reads
    /// (default [`DEFAULT_INPUT_TOKENS`], at least
    /// [`MIN_INPUT_TOKENS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u32>,
}

impl ModelConfig {
    /// Model `model` at `base_url`, with no key and every default.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            api_key_env: None,
            timeout_ms: None,
            max_tokens: None,
            concurrency: None,
            input_tokens: None,
        }
    }
}

/// Sessions a role works on at once unless configured.
pub const DEFAULT_CONCURRENCY: u32 = 4;
/// The most a role may be given.
pub const MAX_CONCURRENCY: u32 = 64;

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_env", &self.api_key_env)
            .field("timeout_ms", &self.timeout_ms)
            .field("max_tokens", &self.max_tokens)
            .field("concurrency", &self.concurrency)
            .field("input_tokens", &self.input_tokens)
            .finish()
    }
}

impl ModelConfig {
    pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

    /// Builds the client for this endpoint playing `role`.
    pub fn client(
        &self,
        role: Role,
        http: &reqwest::Client,
    ) -> Result<Arc<dyn ChatClient>, ChannelError> {
        let key = match (&self.api_key, &self.api_key_env) {
            (Some(k), _) => Some(k.clone()),
            (None, Some(var)) => Some(std::env::var(var).map_err(|_| {
                ChannelError::new(
                    ChannelErrorKind::Config,
                    format!("environment variable {var} is not set"),
                )
            })?),
            (None, None) => None,
        };
        let channel = OpenAiChannel::new(
            http.clone(),
            self.base_url.clone(),
            self.model.clone(),
            key,
            Vec::new(),
            Duration::from_millis(self.timeout_ms.unwrap_or(Self::DEFAULT_TIMEOUT_MS)),
        )
        .with_max_tokens(Some(
            self.max_tokens
                .filter(|&n| n > 0)
                .unwrap_or(role.default_max_tokens()),
        ));
        Ok(Arc::new(ModelClient {
            channel,
            base_url: self.base_url.clone(),
            model: self.model.clone(),
        }))
    }
}

/// A role model's answer and the form it was asked in.
#[derive(Debug, Clone)]
pub struct StructuredReply {
    pub reply: ChatReply,
    pub mode: OutputMode,
}

/// The [`ChatClient`] of an OpenAI-compatible endpoint.
pub struct ModelClient {
    channel: OpenAiChannel,
    base_url: String,
    model: String,
}

/// Whether the endpoint refused the request itself, which is how one that
/// does not take a `response_format` form answers: 400, 422 from servers
/// that validate bodies with a schema of their own, or a 500 that names
/// `response_format` (llama-cpp-python's server reports its validation
/// errors that way). Any other 500 is the endpoint's fault.
fn refused_request(e: &ChannelError) -> bool {
    e.kind == ChannelErrorKind::Status
        && match e.status {
            Some(400 | 422) => true,
            Some(500) => e.message.contains("response_format"),
            _ => false,
        }
}

#[async_trait::async_trait]
impl ChatClient for ModelClient {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<ChatReply, ChannelError> {
        let request = ChatRequest {
            messages: messages.to_vec(),
            tools: Default::default(),
        };
        self.channel.send(&request).await
    }

    async fn complete_structured(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<StructuredReply, ChannelError> {
        let request = ChatRequest {
            messages: messages.to_vec(),
            tools: Default::default(),
        };
        let mut mode = crate::structured::remembered(&self.base_url, &self.model)
            .unwrap_or(OutputMode::LADDER[0]);
        loop {
            let format = schema.response_format(mode);
            match self
                .channel
                .send_with_format(&request, format.as_ref())
                .await
            {
                Ok(reply) => {
                    crate::structured::remember(&self.base_url, &self.model, mode);
                    return Ok(StructuredReply { reply, mode });
                }
                Err(e) if refused_request(&e) => match mode.next() {
                    Some(next) => {
                        tracing::info!(model = %self.model, refused = %mode, next = %next, error = %e,
                            "the endpoint refused this form of structured output; trying the next");
                        mode = next;
                    }
                    None => return Err(e),
                },
                Err(e) => return Err(e),
            }
        }
    }

    fn endpoint(&self) -> Option<String> {
        Some(self.base_url.clone())
    }

    fn model_name(&self) -> String {
        self.model.clone()
    }
}

/// Which model plays which role; `None` = offline fallback for that role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RoleModels {
    pub virtual_user: Option<ModelConfig>,
    pub judge: Option<ModelConfig>,
    pub analyst: Option<ModelConfig>,
    /// Answers a played tool's call that no declared response matches.
    #[serde(default)]
    pub tool_simulator: Option<ModelConfig>,
}

impl RoleModels {
    /// Reads `AGENTEVAL_{USER,JUDGE,ANALYST,TOOLS}_{BASE_URL,MODEL,API_KEY,TIMEOUT_MS,MAX_TOKENS,CONCURRENCY}`.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Same as [`from_env`](Self::from_env) over any lookup, so that tests
    /// need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let role = |prefix: &str| {
            let get = |suffix: &str| {
                lookup(&format!("AGENTEVAL_{prefix}_{suffix}"))
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
            };
            Some(ModelConfig {
                base_url: get("BASE_URL")?,
                model: get("MODEL")?,
                api_key: get("API_KEY"),
                api_key_env: None,
                timeout_ms: get("TIMEOUT_MS").and_then(|v| v.parse().ok()),
                max_tokens: get("MAX_TOKENS").and_then(|v| v.parse().ok()),
                concurrency: get("CONCURRENCY").and_then(|v| v.parse().ok()),
                input_tokens: get("INPUT_TOKENS").and_then(|v| v.parse().ok()),
            })
        };
        Self {
            virtual_user: role(Role::VirtualUser.env_prefix()),
            judge: role(Role::Judge.env_prefix()),
            analyst: role(Role::Analyst.env_prefix()),
            tool_simulator: role(Role::ToolSimulator.env_prefix()),
        }
    }

    pub fn get(&self, role: Role) -> Option<&ModelConfig> {
        match role {
            Role::VirtualUser => self.virtual_user.as_ref(),
            Role::Judge => self.judge.as_ref(),
            Role::Analyst => self.analyst.as_ref(),
            Role::ToolSimulator => self.tool_simulator.as_ref(),
        }
    }

    /// These models, with `defaults` filling the roles these leave
    /// unconfigured (role by role, never field by field: an endpoint's key
    /// never pairs with another endpoint's URL).
    pub fn or(self, defaults: RoleModels) -> RoleModels {
        RoleModels {
            virtual_user: self.virtual_user.or(defaults.virtual_user),
            judge: self.judge.or(defaults.judge),
            analyst: self.analyst.or(defaults.analyst),
            tool_simulator: self.tool_simulator.or(defaults.tool_simulator),
        }
    }

    /// Whether no role has a model: everything runs offline.
    pub fn is_offline(&self) -> bool {
        self.virtual_user.is_none()
            && self.judge.is_none()
            && self.analyst.is_none()
            && self.tool_simulator.is_none()
    }

    /// Builds the clients; a role whose client cannot be built (e.g. its key
    /// variable is missing) falls back to offline with a warning, so that a
    /// misconfigured model degrades only its own role.
    pub fn clients(&self, http: &reqwest::Client) -> RoleClients {
        let build = |role: Role| {
            self.get(role).and_then(|c| match c.client(role, http) {
                Ok(client) => Some(client),
                Err(e) => {
                    tracing::warn!(?role, error = %e, "role model unavailable; using the offline fallback");
                    None
                }
            })
        };
        let slots = |role: Role| {
            let n = self
                .get(role)
                .and_then(|c| c.concurrency)
                .unwrap_or(DEFAULT_CONCURRENCY)
                .clamp(1, MAX_CONCURRENCY);
            Arc::new(tokio::sync::Semaphore::new(n as usize))
        };
        RoleClients {
            virtual_user: build(Role::VirtualUser),
            judge: build(Role::Judge),
            analyst: build(Role::Analyst),
            tool_simulator: build(Role::ToolSimulator),
            user_slots: slots(Role::VirtualUser),
            judge_slots: slots(Role::Judge),
        }
    }
}

/// The role models in force and their clients. The platform holds one;
/// the judge worker, the patrol agent and the analysis read it at each use,
/// so that replacing the models (the desktop app's settings) takes effect
/// without a restart.
pub struct LiveRoles {
    current: RwLock<(RoleModels, RoleClients)>,
}

impl std::fmt::Debug for LiveRoles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LiveRoles").field(&self.clients()).finish()
    }
}

impl LiveRoles {
    pub fn new(models: RoleModels, http: &reqwest::Client) -> Self {
        let clients = models.clients(http);
        Self {
            current: RwLock::new((models, clients)),
        }
    }

    pub fn models(&self) -> RoleModels {
        self.read().0.clone()
    }

    pub fn clients(&self) -> RoleClients {
        self.read().1.clone()
    }

    /// Replaces the models; work already under way finishes with the
    /// clients it started with.
    pub fn set(&self, models: RoleModels, http: &reqwest::Client) {
        let clients = models.clients(http);
        tracing::info!(?clients, "role models replaced");
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = (models, clients);
    }

    /// Replaces the clients alone (tests inject fakes).
    pub fn set_clients(&self, clients: RoleClients) {
        self.current.write().unwrap_or_else(|p| p.into_inner()).1 = clients;
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, (RoleModels, RoleClients)> {
        self.current.read().unwrap_or_else(|p| p.into_inner())
    }
}

/// Built clients per role, with the slots that bound how many sessions
/// the virtual user and the judge work on at once.
#[derive(Clone)]
pub struct RoleClients {
    pub virtual_user: Option<Arc<dyn ChatClient>>,
    pub judge: Option<Arc<dyn ChatClient>>,
    pub analyst: Option<Arc<dyn ChatClient>>,
    pub tool_simulator: Option<Arc<dyn ChatClient>>,
    pub user_slots: Arc<tokio::sync::Semaphore>,
    pub judge_slots: Arc<tokio::sync::Semaphore>,
}

impl Default for RoleClients {
    /// Offline: no model, the default concurrency for every role.
    fn default() -> Self {
        let slots = || Arc::new(tokio::sync::Semaphore::new(DEFAULT_CONCURRENCY as usize));
        Self {
            virtual_user: None,
            judge: None,
            analyst: None,
            tool_simulator: None,
            user_slots: slots(),
            judge_slots: slots(),
        }
    }
}

impl std::fmt::Debug for RoleClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = |c: &Option<Arc<dyn ChatClient>>| c.as_ref().map(|c| c.model_name());
        f.debug_struct("RoleClients")
            .field("virtual_user", &name(&self.virtual_user))
            .field("judge", &name(&self.judge))
            .field("analyst", &name(&self.analyst))
            .field("tool_simulator", &name(&self.tool_simulator))
            .finish()
    }
}

/// What plays one role, for people to read: the model and the host it
/// lives on, or the offline fallback. Never a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RoleView {
    /// The model playing the role; `None`: the fallback plays it.
    pub model: Option<String>,
    /// Where the model is served (`host[:port]` of its base URL).
    pub host: Option<String>,
    /// What plays the role without a model: `persona_engine` (virtual
    /// user), `heuristic` (judge), `template` (analyst) or `no_response`
    /// (tool simulator: unmatched calls are answered `NO_RESPONSE`).
    pub fallback: String,
}

/// Which model plays each role now (settings, the report's provenance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RoleModelsView {
    pub virtual_user: RoleView,
    pub judge: RoleView,
    pub analyst: RoleView,
    pub tool_simulator: RoleView,
}

/// `host[:port]` of a base URL, when it parses.
fn host_of(base_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

impl LiveRoles {
    /// What plays each role now: a role whose model could not be set up
    /// (e.g. its key variable is missing) shows its fallback, which is what
    /// plays it.
    pub fn view(&self) -> RoleModelsView {
        let (models, clients) = &*self.read();
        let view = |role: Role, client: &Option<Arc<dyn ChatClient>>| {
            let model = client.as_ref().map(|c| c.model_name());
            RoleView {
                host: model
                    .as_ref()
                    .and(models.get(role))
                    .and_then(|c| host_of(&c.base_url)),
                model,
                fallback: role.fallback().into(),
            }
        };
        RoleModelsView {
            virtual_user: view(Role::VirtualUser, &clients.virtual_user),
            judge: view(Role::Judge, &clients.judge),
            analyst: view(Role::Analyst, &clients.analyst),
            tool_simulator: view(Role::ToolSimulator, &clients.tool_simulator),
        }
    }
}

/// A scripted client for tests: answers with the queued replies in order
/// and records every prompt it received.
#[derive(Default)]
pub struct FakeChatClient {
    replies: Mutex<VecDeque<Result<String, ChannelError>>>,
    prompts: Mutex<Vec<Vec<ChatMessage>>>,
    /// The schema named by each structured request, in order.
    schemas: Mutex<Vec<&'static str>>,
    /// The form structured requests report (default: the prompt alone).
    mode: Option<OutputMode>,
    /// Answer once the script is used up (`None`: a Malformed error).
    fallback: Option<String>,
}

impl FakeChatClient {
    pub fn new<S: Into<String>>(replies: impl IntoIterator<Item = S>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().map(|r| Ok(r.into())).collect()),
            ..Self::default()
        }
    }

    /// Once the script is used up, answer `reply` forever.
    pub fn with_fallback(mut self, reply: impl Into<String>) -> Self {
        self.fallback = Some(reply.into());
        self
    }

    /// Structured requests report `mode`, as an endpoint that took it would.
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The schema each structured request asked for, in order.
    pub fn schemas(&self) -> Vec<&'static str> {
        self.schemas
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Queues a failure.
    pub fn push_error(&self, error: ChannelError) {
        self.lock_replies().push_back(Err(error));
    }

    pub fn push_reply(&self, reply: impl Into<String>) {
        self.lock_replies().push_back(Ok(reply.into()));
    }

    /// Every prompt received so far, in order.
    pub fn prompts(&self) -> Vec<Vec<ChatMessage>> {
        self.prompts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn lock_replies(&self) -> std::sync::MutexGuard<'_, VecDeque<Result<String, ChannelError>>> {
        self.replies.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait::async_trait]
impl ChatClient for FakeChatClient {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<ChatReply, ChannelError> {
        self.prompts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(messages.to_vec());
        let next = self.lock_replies().pop_front();
        let content = match next {
            Some(r) => r?,
            None => self.fallback.clone().ok_or_else(|| {
                ChannelError::new(
                    ChannelErrorKind::Malformed,
                    "the fake client's script is used up",
                )
            })?,
        };
        Ok(ChatReply {
            content,
            tool_calls: Vec::new(),
            usage: None,
            latency_ms: 0,
            model: Some("fake".into()),
        })
    }

    async fn complete_structured(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<StructuredReply, ChannelError> {
        self.schemas
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(schema.name);
        Ok(StructuredReply {
            reply: self.complete(messages).await?,
            mode: self.mode.unwrap_or(OutputMode::PromptOnly),
        })
    }

    fn model_name(&self) -> String {
        "fake".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_lookup_configures_only_complete_roles() {
        let env = |k: &str| match k {
            "AGENTEVAL_JUDGE_BASE_URL" => Some("http://127.0.0.1:9/v1".to_string()),
            "AGENTEVAL_JUDGE_MODEL" => Some("qwen".to_string()),
            "AGENTEVAL_JUDGE_API_KEY" => Some("sk-test".to_string()),
            "AGENTEVAL_USER_MODEL" => Some("only-model".to_string()),
            _ => None,
        };
        let roles = RoleModels::from_lookup(env);
        let judge = roles.judge.expect("judge has base URL and model");
        assert_eq!(judge.model, "qwen");
        assert_eq!(judge.api_key.as_deref(), Some("sk-test"));
        assert!(
            roles.virtual_user.is_none(),
            "a role without a base URL stays offline"
        );
        assert!(roles.analyst.is_none());
        assert!(roles.tool_simulator.is_none());
        assert!(
            !format!("{judge:?}").contains("sk-test"),
            "keys never reach logs"
        );
        assert!(
            !serde_json::to_string(&judge).unwrap().contains("sk-test"),
            "keys are never serialized"
        );
        assert!(RoleModels::from_lookup(|_| None).is_offline());
    }

    #[test]
    fn max_tokens_and_defaults_per_role() {
        let env = |k: &str| match k {
            "AGENTEVAL_ANALYST_BASE_URL" => Some("http://127.0.0.1:9/v1".to_string()),
            "AGENTEVAL_ANALYST_MODEL" => Some("env-analyst".to_string()),
            "AGENTEVAL_ANALYST_MAX_TOKENS" => Some("2048".to_string()),
            "AGENTEVAL_ANALYST_INPUT_TOKENS" => Some("1500".to_string()),
            "AGENTEVAL_JUDGE_BASE_URL" => Some("http://127.0.0.1:9/v1".to_string()),
            "AGENTEVAL_JUDGE_MODEL" => Some("env-judge".to_string()),
            _ => None,
        };
        let from_env = RoleModels::from_lookup(env);
        assert_eq!(from_env.analyst.as_ref().unwrap().max_tokens, Some(2048));
        assert_eq!(from_env.analyst.as_ref().unwrap().input_tokens, Some(1500));
        assert_eq!(Role::VirtualUser.default_max_tokens(), 300);
        assert_eq!(Role::Judge.default_max_tokens(), 800);
        assert_eq!(Role::Analyst.default_max_tokens(), 1500);
        let saved = RoleModels {
            judge: Some(ModelConfig::new("http://127.0.0.1:8/v1", "saved-judge")),
            ..RoleModels::default()
        };
        let merged = saved.or(from_env);
        assert_eq!(
            merged.judge.unwrap().model,
            "saved-judge",
            "a configured role wins over the default"
        );
        assert_eq!(
            merged.analyst.unwrap().model,
            "env-analyst",
            "an unconfigured role takes the default"
        );
        assert!(merged.virtual_user.is_none());
    }

    #[test]
    fn the_view_names_models_and_hosts_never_keys() {
        let http = reqwest::Client::new();
        let judge = ModelConfig {
            base_url: "http://127.0.0.1:8081/v1".into(),
            model: "qwen2.5-7b".into(),
            api_key: Some("sk-secret".into()),
            api_key_env: None,
            timeout_ms: None,
            max_tokens: None,
            concurrency: None,
            input_tokens: None,
        };
        let broken = ModelConfig {
            base_url: "https://api.example.com/v1".into(),
            model: "needs-a-key".into(),
            api_key: None,
            api_key_env: Some("AGENTEVAL_TEST_UNSET_KEY_VARIABLE".into()),
            timeout_ms: None,
            max_tokens: None,
            concurrency: None,
            input_tokens: None,
        };
        let roles = LiveRoles::new(
            RoleModels {
                virtual_user: None,
                judge: Some(judge),
                analyst: Some(broken),
                tool_simulator: None,
            },
            &http,
        );
        let view = roles.view();
        assert_eq!(
            view.judge,
            RoleView {
                model: Some("qwen2.5-7b".into()),
                host: Some("127.0.0.1:8081".into()),
                fallback: "heuristic".into(),
            }
        );
        assert_eq!(
            view.virtual_user,
            RoleView {
                model: None,
                host: None,
                fallback: "persona_engine".into(),
            },
            "offline: the persona engine plays the user"
        );
        assert_eq!(
            (view.analyst.model, view.analyst.fallback.as_str()),
            (None, "template"),
            "a model whose key is missing does not play: the template does"
        );
        assert!(
            !serde_json::to_string(&roles.view())
                .unwrap()
                .contains("sk-secret")
        );
    }
}
