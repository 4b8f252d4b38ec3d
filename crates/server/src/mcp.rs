//! The Model Context Protocol face of the platform: the patrol and
//! exploration loop, and production conversations (`production`), as MCP
//! tools, for agents and editors (Claude Desktop, Cursor, any agent
//! runtime). Served over stdio by `agenteval mcp` and
//! over streamable HTTP at `/mcp` beside the API, where the caller's
//! `X-API-Key` decides what it may do, as on the API: a viewer may call
//! only the reading tools.
//!
//! Each tool is a thin adapter over one engine operation, like an HTTP
//! handler. An operation's refusal (a spent budget, an ended session, a
//! viewer asking to write) is a tool error carrying the API's error body
//! `{code, message, suggestion}`, in the caller's language, so that the
//! agent reads the reason code; a protocol error is left for requests that
//! cannot be routed at all.

use agenteval_engine::domain::ids::CampaignId;
use agenteval_engine::exploration::{CloseSession, CreateSession, SeedRef, SendMessage, Trigger};
use agenteval_engine::keys::Caller;
use agenteval_engine::scenario::regression::SaveScenarioFile;
use agenteval_engine::{Error, Lang, Platform, i18n, msg};
use axum::http::request::Parts;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::sync::Arc;

mod production;

/// The name the stdio server acts under in the audit trail: whoever
/// started `agenteval mcp` owns its data folder.
pub const LOCAL_MCP_NAME: &str = "mcp";

/// The MCP server over one platform.
#[derive(Clone)]
pub struct AgentEvalMcp {
    platform: Arc<Platform>,
    /// Who calls when no HTTP request names a key (stdio).
    local: Option<Caller>,
    /// The language when the request asks for none.
    lang: Lang,
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CampaignArgs {
    /// The campaign's id (a UUID, as `patrol` lists it).
    pub campaign_id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SessionArgs {
    /// The session's id (a UUID, as `open_session` returned it).
    pub session_id: String,
}

/// A campaign as `list_campaigns` lists it.
#[derive(Debug, Serialize)]
struct CampaignListed {
    id: CampaignId,
    name: String,
    target_id: agenteval_engine::TargetId,
    status: agenteval_engine::campaign::CampaignStatus,
    line: agenteval_engine::campaign::Line,
    window_start: chrono::DateTime<chrono::Utc>,
    window_end: chrono::DateTime<chrono::Utc>,
    time_scale: f64,
    personas: usize,
    goals: usize,
}

impl CampaignListed {
    fn of(c: &agenteval_engine::campaign::Campaign) -> Self {
        Self {
            id: c.id,
            name: c.name.clone(),
            target_id: c.target_id,
            status: c.status,
            line: c.line,
            window_start: c.window_start,
            window_end: c.window_end,
            time_scale: c.time_scale,
            personas: c.seed_set.personas.len(),
            goals: c.seed_set.goals.len(),
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RunArgs {
    /// The run's id (a UUID, as the report or `GET /api/campaigns/{id}/runs` lists it).
    pub run_id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct OpenSessionArgs {
    /// The campaign to explore (a running one).
    pub campaign_id: String,
    /// The seed persona's id in the campaign's seed set. With `goal_id`
    /// and without `persona`/`goal`, the seed objects themselves are used.
    #[serde(default)]
    pub persona_id: Option<String>,
    /// The seed goal's id in the campaign's seed set.
    #[serde(default)]
    pub goal_id: Option<String>,
    /// The virtual user, when not a seed (or a variant of one): a JSON
    /// object or a plain description.
    #[serde(default)]
    pub persona: Option<serde_json::Value>,
    /// What the user wants, when not a seed goal: a string or an object.
    #[serde(default)]
    pub goal: Option<serde_json::Value>,
    /// `auto` (default: a patrol's own decision) or `manual`.
    #[serde(default)]
    pub trigger: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SendTurnArgs {
    pub session_id: String,
    /// What the virtual user says (not only spaces, at most 2,048 characters).
    pub content: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CloseArgs {
    pub session_id: String,
    /// Whether the virtual user reached its goal.
    pub goal_achieved: bool,
    /// Where it got stuck, one sentence each, first-hand.
    #[serde(default)]
    pub blockers: Option<Vec<String>>,
    /// Where it was misled, with the figure or phrase that misled it.
    #[serde(default)]
    pub misled: Option<Vec<String>>,
    /// satisfied, neutral, confused, frustrated, angry, delighted or anxious.
    #[serde(default)]
    pub emotion: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// user_goal_met, user_gave_up, max_turns, simulator_error or
    /// budget_exhausted; default from `goal_achieved`.
    #[serde(default)]
    pub end_reason: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PromoteArgs {
    pub session_id: String,
    /// The user turn (1-based) of the finding; default: the session's
    /// poorest judge finding.
    #[serde(default)]
    pub turn: Option<u32>,
    /// The user pack to save it in (default `regressions`).
    #[serde(default)]
    pub pack: Option<String>,
}

/// What `promote_finding` saved.
#[derive(Debug, Serialize)]
struct Promoted {
    pack: String,
    file_name: String,
    scenario_id: String,
    yaml: String,
    lineage: agenteval_engine::scenario::Lineage,
}

#[tool_router]
impl AgentEvalMcp {
    /// The server for `platform`; `local` is the caller of a transport
    /// without keys (stdio), `None` behind the HTTP API, where the request's
    /// key names it.
    pub fn new(platform: Arc<Platform>, local: Option<Caller>, lang: Lang) -> Self {
        Self {
            platform,
            local,
            lang,
            tool_router: Self::tool_router() + Self::production_router(),
        }
    }

    #[tool(
        description = "Running formal campaigns: each one's remaining exploration budget (sessions left, when the next may start), its seed personas and goals, persona x goal coverage, uncovered cells and failed goals, and what changed since the previous patrol. Start here."
    )]
    async fn patrol(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        Ok(self
            .call(&ctx, "patrol", Access::Read, None, p.patrol())
            .await)
    }

    #[tool(
        description = "One campaign: its target, window, plan, budget and seed set (the persona and goal objects to role-play)."
    )]
    async fn get_campaign(
        &self,
        Parameters(a): Parameters<CampaignArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let id = a.campaign_id.clone();
        Ok(self
            .call(&ctx, "get_campaign", Access::Read, uuid(&id), async move {
                p.get_campaign(parse("campaign", &id)?).await
            })
            .await)
    }

    #[tool(
        description = "Opens an exploration session on a campaign within its budget. Give persona_id and goal_id of the campaign's seed set (the seeds are then used as they are), or persona and goal objects (a variant). A spent budget is refused with SESSION_BUDGET_EXHAUSTED, a session too soon with INTERVAL_NOT_ELAPSED (and next_allowed_at)."
    )]
    async fn open_session(
        &self,
        Parameters(a): Parameters<OpenSessionArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.campaign_id);
        Ok(self
            .call(&ctx, "open_session", Access::Write, subject, async move {
                let req = open_request(&p, a).await?;
                p.create_session(req).await
            })
            .await)
    }

    #[tool(
        description = "Sends the virtual user's next message to the target and returns the target's reply, the turn number and the turns remaining. TURN_LIMIT_REACHED means: close the session with end_reason max_turns."
    )]
    async fn send_turn(
        &self,
        Parameters(a): Parameters<SendTurnArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.session_id);
        Ok(self
            .call(&ctx, "send_turn", Access::Write, subject, async move {
                let id = parse("session", &a.session_id)?;
                p.send_message(id, SendMessage { content: a.content }).await
            })
            .await)
    }

    #[tool(
        description = "Files the virtual user's experience record and closes the session; the platform queues the judge review itself."
    )]
    async fn close_session(
        &self,
        Parameters(a): Parameters<CloseArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.session_id);
        Ok(self
            .call(&ctx, "close_session", Access::Write, subject, async move {
                let id = parse("session", &a.session_id)?;
                let record = close_request(&a)?;
                p.close_session(id, record).await
            })
            .await)
    }

    #[tool(description = "A session with its whole conversation, turn by turn.")]
    async fn get_session(
        &self,
        Parameters(a): Parameters<SessionArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.session_id);
        Ok(self
            .call(&ctx, "get_session", Access::Read, subject, async move {
                p.session_messages(parse("session", &a.session_id)?).await
            })
            .await)
    }

    #[tool(
        description = "Every campaign, newest first, whatever its status (draft, scheduled, running, finalized, cancelled) and line (formal or accelerated): id, name, target, status, window, time scale and seed counts. Use it to find a campaign whose findings to read; patrol lists only running formal ones."
    )]
    async fn list_campaigns(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        Ok(self
            .call(&ctx, "list_campaigns", Access::Read, None, async move {
                let campaigns = p.list_campaigns().await?;
                // Structured content is an object: the list under a name.
                Ok(serde_json::json!({
                    "campaigns": campaigns.iter().map(CampaignListed::of).collect::<Vec<_>>()
                }))
            })
            .await)
    }

    #[tool(
        description = "One fixed run: its verdict and checks' results (a failed check names the step it is about), and its conversation turn by turn with the steps of an agent that acts: each tool call, its arguments, and the result or error the engine answered."
    )]
    async fn get_run(
        &self,
        Parameters(a): Parameters<RunArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.run_id);
        Ok(self
            .call(&ctx, "get_run", Access::Read, subject, async move {
                p.get_run(parse("run", &a.run_id)?).await
            })
            .await)
    }

    #[tool(
        description = "A campaign report's exploration findings: issues with their sessions, the judge's findings per session and turn (poor first), goal achievement, coverage and simulator faults, with the names the report gives each session. Findings with a turn can be promoted."
    )]
    async fn read_findings(
        &self,
        Parameters(a): Parameters<CampaignArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.campaign_id);
        Ok(self
            .call(&ctx, "read_findings", Access::Read, subject, async move {
                let report = p
                    .campaign_report(parse("campaign", &a.campaign_id)?)
                    .await?;
                Ok(serde_json::json!({
                    "campaign_id": report.campaign.id,
                    "campaign": report.campaign.name,
                    "exploration": report.exploration,
                    "sessions": report.evidence.sessions,
                    "guarded": report.guarded,
                }))
            })
            .await)
    }

    #[tool(
        description = "Turns a session's judge finding (at turn, else its poorest) into a regression scenario: the user's turns up to the finding and the check that guards against it, saved into a user pack of the data folder with its lineage; the next period of the target runs it. Returns the pack file."
    )]
    async fn promote_finding(
        &self,
        Parameters(a): Parameters<PromoteArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.session_id);
        let lang = self.lang_of(&ctx);
        Ok(self
            .call(
                &ctx,
                "promote_finding",
                Access::Write,
                subject,
                async move {
                    let id = parse("session", &a.session_id)?;
                    let draft = p.draft_regression(id, a.turn, a.pack, lang).await?;
                    p.save_scenario_file(SaveScenarioFile {
                        pack: draft.pack.clone(),
                        file_name: draft.file_name.clone(),
                        yaml: draft.yaml.clone(),
                    })
                    .await?;
                    Ok(Promoted {
                        pack: draft.pack,
                        file_name: draft.file_name,
                        scenario_id: draft.scenario_id,
                        yaml: draft.yaml,
                        lineage: draft.lineage,
                    })
                },
            )
            .await)
    }
}

/// Whether a tool changes anything (a viewer may call only the others).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

impl AgentEvalMcp {
    /// Runs one tool's operation for the caller, in the caller's language,
    /// and records it in the audit trail (`mcp <tool>`) with its outcome.
    async fn call<T: Serialize>(
        &self,
        ctx: &RequestContext<RoleServer>,
        tool: &str,
        access: Access,
        subject: Option<uuid::Uuid>,
        work: impl Future<Output = Result<T, Error>>,
    ) -> CallToolResult {
        let lang = self.lang_of(ctx);
        let action = format!("mcp {tool}");
        let Some(caller) = self.caller_of(ctx) else {
            return refusal(crate::error::unauthorized().0, lang);
        };
        let actor = caller.actor();
        if access == Access::Write && !caller.role.may_change() {
            let e = crate::error::forbidden(&caller, crate::error::Forbidden::ReadOnly).0;
            self.platform
                .audit(&actor, &action, subject, e.code().as_str())
                .await;
            return refusal(e, lang);
        }
        let outcome = i18n::scope(
            lang,
            agenteval_engine::audit::acting_for(actor.clone(), async {
                work.await.and_then(|v| {
                    serde_json::to_value(v).map_err(|e| Error::internal(anyhow::anyhow!(e)))
                })
            }),
        )
        .await;
        let code = outcome.as_ref().err().map_or("ok", |e| e.code().as_str());
        self.platform.audit(&actor, &action, subject, code).await;
        match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => refusal(e, lang),
        }
    }

    /// The caller: the key the HTTP request was authorized with, else the
    /// local caller of a transport without keys.
    fn caller_of(&self, ctx: &RequestContext<RoleServer>) -> Option<Caller> {
        match ctx.extensions.get::<Parts>() {
            Some(parts) => parts.extensions.get::<Caller>().cloned(),
            None => self.local.clone(),
        }
    }

    /// The reader's language: the HTTP request's (`?lang=`, else
    /// `Accept-Language`; see the API), else the server's.
    fn lang_of(&self, ctx: &RequestContext<RoleServer>) -> Lang {
        ctx.extensions
            .get::<Parts>()
            .and_then(|parts| crate::lang_of_request(&parts.uri, &parts.headers).ok())
            .unwrap_or(self.lang)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for AgentEvalMcp {
    /// Routes a call to its tool; arguments the tool cannot read (a
    /// missing one, one of the wrong type) are refused as `INVALID_INPUT`
    /// in the caller's language, as the API refuses a bad body.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let lang = self.lang_of(&context);
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        match self.tool_router.call(call).await? {
            rmcp::model::CallToolResponse::Complete(result) => {
                Ok(unreadable_arguments(result, lang).into())
            }
            other => Ok(other),
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "agenteval",
                agenteval_build_info::VERSION,
            ))
            .with_instructions(
                "AgentEval: evaluate a conversational agent. Call patrol to see running campaigns and \
                 their exploration budget; open_session on a cell (persona x goal) with budget left; \
                 send_turn as the persona until the goal is met, the persona gives up or the turns run \
                 out; close_session with the experience record. read_findings shows what the judge \
                 found; promote_finding turns a finding into a regression scenario. \
                 import_traces keeps production conversations from OTLP/JSON; \
                 list_production_conversations and get_production_conversation read what real users \
                 said (imported traces); draft_from_conversation turns one into a fixed scenario and \
                 propose_seeds proposes personas and goals from several. Refusals are tool \
                 errors with a code (SESSION_BUDGET_EXHAUSTED, INTERVAL_NOT_ELAPSED, \
                 TURN_LIMIT_REACHED, ...): read their suggestion and do not retry them.",
            )
    }
}

/// The SDK's refusal of arguments that do not deserialize, as the API's
/// `INVALID_INPUT` in the reader's language; any other result as it is.
fn unreadable_arguments(result: CallToolResult, lang: Lang) -> CallToolResult {
    const PREFIX: &str = "failed to deserialize parameters:";
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.as_str());
    let Some(detail) = text.and_then(|t| t.strip_prefix(PREFIX)) else {
        return result;
    };
    let detail = detail.trim();
    let field = detail
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    let message = match field {
        Some(field) => msg!("error-mcp-missing-argument", field = field),
        None => msg!("error-mcp-bad-arguments", detail = detail),
    };
    refusal(
        Error::invalid_msg(message, msg!("error-mcp-arguments-suggestion")),
        lang,
    )
}

/// An error as a tool error: the API's error body in the reader's language.
fn refusal(e: Error, lang: Lang) -> CallToolResult {
    if let Some(cause) = &e.cause {
        tracing::error!(error = ?cause, code = %e.code(), "MCP tool failed");
    }
    let code = e.code();
    let body = serde_json::to_value(e.body.in_lang(lang))
        .unwrap_or_else(|_| serde_json::json!({"code": code.as_str()}));
    CallToolResult::structured_error(body)
}

fn uuid(s: &str) -> Option<uuid::Uuid> {
    uuid::Uuid::parse_str(s.trim()).ok()
}

/// An id argument: one that is not a UUID names nothing (404), as on the API.
fn parse<T: From<uuid::Uuid>>(what: &str, s: &str) -> Result<T, Error> {
    crate::error::parse_id(what, s).map_err(|e| e.0)
}

/// The session to create: seed objects looked up by id when only the ids
/// are given.
async fn open_request(p: &Platform, a: OpenSessionArgs) -> Result<CreateSession, Error> {
    let campaign_id: CampaignId = parse("campaign", &a.campaign_id)?;
    let trigger = match a.trigger.as_deref() {
        None => Some(Trigger::Auto),
        Some(t) => Some(serde_json::from_value(t.into()).map_err(|_| {
            Error::invalid_msg(
                msg!("error-mcp-trigger", trigger = t),
                msg!("error-mcp-trigger-suggestion"),
            )
        })?),
    };
    let seed_ref = match (&a.persona_id, &a.goal_id) {
        (Some(persona_id), Some(goal_id)) => Some(SeedRef {
            persona_id: persona_id.clone(),
            goal_id: goal_id.clone(),
            variant: None,
        }),
        (None, None) => None,
        _ => {
            return Err(Error::invalid_msg(
                msg!("error-mcp-seed-pair"),
                msg!("error-mcp-seed-pair-suggestion"),
            ));
        }
    };
    let (persona, goal) = match (a.persona, a.goal, &seed_ref) {
        (Some(persona), Some(goal), _) => (persona, goal),
        (persona, goal, Some(seed)) => {
            let seeds = p.get_campaign(campaign_id).await?.seed_set;
            let seed_persona = seeds.personas.iter().find(|s| s.id == seed.persona_id);
            let seed_goal = seeds.goals.iter().find(|s| s.id == seed.goal_id);
            // An id the seed set lacks is left to the operation to refuse.
            (
                persona.unwrap_or_else(|| json_of(seed_persona)),
                goal.unwrap_or_else(|| json_of(seed_goal)),
            )
        }
        _ => {
            return Err(Error::invalid_msg(
                msg!("error-mcp-seed-pair"),
                msg!("error-mcp-seed-pair-suggestion"),
            ));
        }
    };
    Ok(CreateSession {
        campaign_id,
        persona,
        goal,
        seed_ref,
        trigger,
        played_by: None,
        user_model: None,
    })
}

/// A seed as JSON; `null` when there is none.
fn json_of<T: Serialize>(seed: Option<&T>) -> serde_json::Value {
    seed.and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or_default()
}

/// The experience record as the close operation takes it.
fn close_request(a: &CloseArgs) -> Result<CloseSession, Error> {
    serde_json::to_value(a)
        .and_then(serde_json::from_value)
        .map_err(|e| {
            Error::invalid_msg(
                msg!("error-mcp-record", detail = e.to_string()),
                msg!("error-mcp-record-suggestion"),
            )
        })
}

/// Serves MCP over stdin/stdout until the client hangs up.
pub async fn serve_stdio(platform: Arc<Platform>, lang: Lang) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let local = Caller {
        name: LOCAL_MCP_NAME.to_string(),
        role: agenteval_engine::keys::ApiKeyRole::Admin,
    };
    let server = AgentEvalMcp::new(platform, Some(local), lang)
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}

/// The streamable HTTP service mounted at `/mcp` (stateless, JSON
/// answers); the API's key check runs before it.
pub fn http_service(
    platform: Arc<Platform>,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    AgentEvalMcp,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    // Stateless, JSON answers. The Host check is left to the API key: a
    // page of another site cannot send the key header without a CORS
    // preflight, which this server never grants, and a server bound to a
    // LAN address is reached under that address.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .disable_allowed_hosts();
    StreamableHttpService::new(
        move || Ok(AgentEvalMcp::new(platform.clone(), None, Lang::default())),
        Default::default(),
        config,
    )
}
