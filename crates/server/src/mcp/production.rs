//! The MCP tools over production conversations (imported from
//! OpenTelemetry traces): an import of OTLP/JSON, the list, one
//! conversation, a fixed scenario drafted from one (and saved into a user
//! pack when asked), and seeds proposed from several. Each is a thin
//! adapter over the engine's operation, as the API's `/api/traces` routes
//! are.

use super::{Access, AgentEvalMcp, parse, uuid};
use agenteval_engine::Error;
use agenteval_engine::scenario::regression::SaveScenarioFile;
use agenteval_engine::traces::{Encoding, ImportRequest, ImportedQuery};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ImportArgs {
    /// OTLP/JSON: a collector's file exporter output (one export a line)
    /// or one `ExportTraceServiceRequest` document.
    pub otlp_json: String,
    /// The target whose production it is (its id, a UUID).
    #[serde(default)]
    pub target_id: Option<String>,
    /// Where it came from, as the list shows it (default `mcp`).
    #[serde(default)]
    pub source: Option<String>,
    /// Replace e-mail addresses, phone numbers and ids before anything is
    /// kept (default true).
    #[serde(default)]
    pub redact: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ConversationsArgs {
    /// Only the production of this target (its id, a UUID).
    #[serde(default)]
    pub target_id: Option<String>,
    /// Words the conversation contains (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// Rows to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Rows per page: 1 to 500 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ConversationArgs {
    /// The imported conversation's id (a UUID, as the list gives it).
    pub conversation_id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DraftArgs {
    /// The imported conversation's id (a UUID, as the list gives it).
    pub conversation_id: String,
    /// The user pack to draft it for (default `production`).
    #[serde(default)]
    pub pack: Option<String>,
    /// Save the draft among the data folder's packs (default false: the
    /// draft is only returned, for review).
    #[serde(default)]
    pub save: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ProposeSeedsArgs {
    /// The imported conversations' ids (1 to 200).
    pub conversation_ids: Vec<String>,
}

/// What `draft_from_conversation` returned, and whether it was saved.
#[derive(Debug, Serialize)]
struct Drafted {
    #[serde(flatten)]
    draft: agenteval_engine::traces::TraceDraft,
    saved: bool,
}

#[tool_router(router = production_router, vis = "pub(super)")]
impl AgentEvalMcp {
    #[tool(
        description = "Imports production conversations from OpenTelemetry GenAI traces (OTLP/JSON text): rebuilds them from the spans, redacts personal data (unless redact=false) and keeps them, extending those already kept. Returns how many conversations, user turns, messages and spans it read, what it redacted, and each line it skipped with why."
    )]
    async fn import_traces(
        &self,
        Parameters(a): Parameters<ImportArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = a.target_id.as_deref().and_then(uuid);
        Ok(self
            .call(&ctx, "import_traces", Access::Write, subject, async move {
                let request = ImportRequest::new(
                    a.source.as_deref(),
                    "mcp",
                    Encoding::Json,
                    target(a.target_id.as_deref())?,
                    a.redact,
                );
                p.import_traces(a.otlp_json.as_bytes(), request).await
            })
            .await)
    }

    #[tool(
        description = "Production conversations imported from OpenTelemetry GenAI traces, newest first: each one's id, the user's first sentence (a preview), user turns, messages, traces, model, source and times. Filter by target_id and by words it contains."
    )]
    async fn list_production_conversations(
        &self,
        Parameters(a): Parameters<ConversationsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = a.target_id.as_deref().and_then(uuid);
        Ok(self
            .call(
                &ctx,
                "list_production_conversations",
                Access::Read,
                subject,
                async move {
                    p.imported_conversations(ImportedQuery {
                        target_id: target(a.target_id.as_deref())?,
                        text: a.text,
                        offset: a.offset,
                        limit: a.limit,
                    })
                    .await
                },
            )
            .await)
    }

    #[tool(
        description = "One production conversation as it was said: system instructions, the user's and the agent's messages, tool calls with their results, the tools offered, and the trace ids it was rebuilt from."
    )]
    async fn get_production_conversation(
        &self,
        Parameters(a): Parameters<ConversationArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.conversation_id);
        Ok(self
            .call(
                &ctx,
                "get_production_conversation",
                Access::Read,
                subject,
                async move {
                    p.imported_conversation(parse("conversation", &a.conversation_id)?)
                        .await
                },
            )
            .await)
    }

    #[tool(
        description = "Drafts a fixed scenario from a production conversation: the user's turns are the script, checks are proposed from what each reply did (a tool called, a question asked back, only the figures given), with the conversation's tools and its traces as lineage. Returns the pack file (YAML) for review; with save=true it is also kept among the data folder's packs, where `agenteval run` and the next period find it."
    )]
    async fn draft_from_conversation(
        &self,
        Parameters(a): Parameters<DraftArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let subject = uuid(&a.conversation_id);
        let lang = self.lang_of(&ctx);
        let access = if a.save { Access::Write } else { Access::Read };
        Ok(self
            .call(
                &ctx,
                "draft_from_conversation",
                access,
                subject,
                async move {
                    let id = parse("conversation", &a.conversation_id)?;
                    let draft = p.draft_from_conversation(id, a.pack, lang).await?;
                    if a.save {
                        p.save_scenario_file(SaveScenarioFile {
                            pack: draft.pack.clone(),
                            file_name: draft.file_name.clone(),
                            yaml: draft.yaml.clone(),
                        })
                        .await?;
                    }
                    Ok(Drafted {
                        draft,
                        saved: a.save,
                    })
                },
            )
            .await)
    }

    #[tool(
        description = "Proposes seed personas and goals from production conversations (by the analyst model when one is configured, else by rules, and says which), each with the traces it came from as lineage. Nothing is stored: put the seed_set into a campaign's seeds."
    )]
    async fn propose_seeds(
        &self,
        Parameters(a): Parameters<ProposeSeedsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let p = self.platform.clone();
        let lang = self.lang_of(&ctx);
        Ok(self
            .call(&ctx, "propose_seeds", Access::Read, None, async move {
                let ids = a
                    .conversation_ids
                    .iter()
                    .map(|id| parse("conversation", id))
                    .collect::<Result<Vec<uuid::Uuid>, Error>>()?;
                p.seeds_from_conversations(&ids, lang).await
            })
            .await)
    }
}

/// An optional target id argument; one that is not a UUID names nothing.
fn target(id: Option<&str>) -> Result<Option<agenteval_engine::TargetId>, Error> {
    id.map(|id| parse("target", id)).transpose()
}
