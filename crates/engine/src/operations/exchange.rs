//! One exchange with a target: send the conversation, answer the tool
//! calls of the reply, send again, until the target answers in words or
//! reaches the turn's step limit. Fixed runs and exploration sessions both
//! talk to a target through [`Platform::exchange`]; nothing else calls a
//! target's channel for a turn.
//!
//! The engine plays a tool when it declares `responses` (the first whose
//! `when` holds for the call's arguments answers it; none: the
//! tool-simulator model, or `NO_RESPONSE`: see [`crate::tool_player`]). A
//! call that names no offered tool, or whose arguments do not validate
//! against the tool's schema, is answered with an error the agent can act
//! on. A call of a tool without responses ends the turn: it is what the
//! checks read.
//!
//! Every request stays valid for the strictest OpenAI-compatible API: an
//! assistant message with tool calls is followed, at once, by one `tool`
//! message per call id ([`Exchanged::carry_on`] answers the calls a turn
//! ended on before the conversation goes on).

use crate::channel::{
    Channel, ChannelError, ChatMessage, ChatReply, ChatRequest, Role, ToolCall, ToolSpec, Usage,
};
use crate::domain::steps::{DocumentText, Step, StepAnswer};
use crate::office::Workspace;
use crate::platform::Platform;
use crate::provenance::HostRole;
use crate::tool_player::{Play, Simulator, answer, no_response, play};
use std::sync::Arc;
use uuid::Uuid;

/// What the tools of an exchange are played with: the scenario's facts
/// (for the tool-simulator model; none in exploration) and the run's
/// workspace, whose office tools the engine plays over its files.
#[derive(Default, Clone, Copy)]
pub struct ToolEnv<'a> {
    pub facts: &'a [String],
    pub workspace: Option<&'a Arc<Workspace>>,
}

/// What one exchange gave.
#[derive(Debug)]
pub struct Exchanged {
    /// The target's last reply: its words, and the calls the engine did
    /// not answer. Its latency and tokens are the whole turn's, every
    /// reply of it together.
    pub reply: ChatReply,
    /// The calls the engine answered, in order.
    pub steps: Vec<Step>,
    /// Tool rounds answered.
    pub rounds: u32,
    /// The step limit, when the target was still calling tools at it.
    pub step_limit: Option<u32>,
}

/// An exchange cut by the target: why, and the steps made before.
#[derive(Debug)]
pub struct Broken {
    pub error: ChannelError,
    pub steps: Vec<Step>,
}

/// The assistant message of a reply, with its calls.
fn assistant(reply: &ChatReply) -> ChatMessage {
    let mut m = ChatMessage::assistant(&reply.content);
    m.tool_calls = reply.tool_calls.clone();
    m
}

fn tool_message(call: &ToolCall, answer: &StepAnswer) -> ChatMessage {
    let mut m = ChatMessage::new(Role::Tool, answer.content());
    m.tool_call_id = Some(call.id.clone());
    m
}

/// The calls of `reply`, answered, as steps of round `round`; their tool
/// messages join `request` after the reply's assistant message.
fn answer_round(
    request: &mut ChatRequest,
    reply: &ChatReply,
    answers: Vec<(StepAnswer, Option<DocumentText>)>,
    round: u32,
) -> Vec<Step> {
    request.messages.push(assistant(reply));
    let mut steps = Vec::with_capacity(answers.len());
    for (call, (answer, document)) in reply.tool_calls.iter().zip(answers) {
        request.messages.push(tool_message(call, &answer));
        steps.push(Step {
            round,
            call: call.clone(),
            answer,
            latency_ms: reply.latency_ms,
            tokens_in: reply.usage.map(|u| u.tokens_in),
            tokens_out: reply.usage.map(|u| u.tokens_out),
            document,
        });
    }
    steps
}

fn add_usage(total: Option<Usage>, more: Option<Usage>) -> Option<Usage> {
    match (total, more) {
        (None, u) | (u, None) => u,
        (Some(a), Some(b)) => Some(Usage {
            tokens_in: a.tokens_in.saturating_add(b.tokens_in),
            tokens_out: a.tokens_out.saturating_add(b.tokens_out),
        }),
    }
}

impl Exchanged {
    /// Makes the turn's last reply part of the conversation that goes on:
    /// its assistant message, and an answer to each of its calls (a tool
    /// without responses answers `NO_RESPONSE`), kept as steps of the
    /// reply's round. The calls stay on the reply: they ended the turn.
    pub fn carry_on(&mut self, request: &mut ChatRequest) {
        if self.reply.tool_calls.is_empty() {
            request.messages.push(assistant(&self.reply));
            return;
        }
        let answers = self
            .reply
            .tool_calls
            .iter()
            .map(|c| (answer(&request.tools, c), None))
            .collect();
        // The turn's figures are on the reply; its calls' own are not
        // known apart.
        let last = ChatReply {
            latency_ms: 0,
            usage: None,
            ..self.reply.clone()
        };
        let steps = answer_round(request, &last, answers, self.rounds + 1);
        self.steps.extend(steps);
    }
}

impl Platform {
    /// One exchange of a campaign's conversation with its target: sends
    /// `request` (the conversation so far, ending with the user's message)
    /// and, when the engine plays the request's tools, answers each round
    /// of calls and sends again, at most `max_steps` rounds. The rounds'
    /// messages join `request`; the last reply does not (see
    /// [`Exchanged::carry_on`]). `env` holds what the tools are played
    /// with.
    pub async fn exchange(
        &self,
        campaign: Uuid,
        channel: &dyn Channel,
        request: &mut ChatRequest,
        max_steps: u32,
        env: ToolEnv<'_>,
    ) -> Result<Exchanged, Broken> {
        let plays =
            env.workspace.is_some() || request.tools.iter().any(|t| !t.responses.is_empty());
        let simulator = Simulator::new(self, campaign, env.facts);
        let host = channel.host();
        let mut steps = Vec::new();
        let (mut latency, mut usage) = (0u64, None);
        let mut rounds = 0u32;
        loop {
            let sent = channel.send(request).await;
            self.note_contact(
                campaign,
                HostRole::Target,
                host.as_deref(),
                sent.as_ref().ok().and_then(|r| r.usage),
            );
            let mut reply = sent.map_err(|error| Broken {
                error,
                steps: std::mem::take(&mut steps),
            })?;
            latency += reply.latency_ms;
            usage = add_usage(usage, reply.usage);
            let goes_on = plays
                && !reply.tool_calls.is_empty()
                && reply.tool_calls.iter().all(|c| {
                    !matches!(
                        play(&request.tools, c, env.workspace.is_some()),
                        Play::EndsTurn(_)
                    )
                });
            let at_limit = goes_on && rounds >= max_steps;
            if !goes_on || at_limit {
                reply.latency_ms = latency;
                reply.usage = usage;
                return Ok(Exchanged {
                    reply,
                    steps,
                    rounds,
                    step_limit: at_limit.then_some(max_steps),
                });
            }
            let answers = answer_calls(&simulator, env, &request.tools, &reply.tool_calls).await;
            rounds += 1;
            steps.extend(answer_round(request, &reply, answers, rounds));
        }
    }
}

/// The answers to a round of calls of played tools, in order, each with
/// the document it wrote; a call no declared response matches is asked of
/// the simulator, and an office tool's is played over the workspace (off
/// the async threads: it reads and writes files).
async fn answer_calls(
    simulator: &Simulator<'_>,
    env: ToolEnv<'_>,
    tools: &[ToolSpec],
    calls: &[ToolCall],
) -> Vec<(StepAnswer, Option<DocumentText>)> {
    let mut answers = Vec::with_capacity(calls.len());
    for call in calls {
        answers.push(match play(tools, call, env.workspace.is_some()) {
            Play::Answer(a) => (a, None),
            Play::Unmatched(tool) => (simulator.answer(tool, call).await, None),
            Play::EndsTurn(tool) => (no_response(tool), None),
            Play::Office(tool) => match env.workspace {
                Some(workspace) => play_office(workspace.clone(), call).await,
                None => (no_response(tool), None),
            },
        });
    }
    answers
}

async fn play_office(
    workspace: Arc<Workspace>,
    call: &ToolCall,
) -> (StepAnswer, Option<DocumentText>) {
    let (name, arguments) = (call.name.clone(), call.arguments.clone());
    tokio::task::spawn_blocking(move || workspace.play(&name, &arguments))
        .await
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "an office tool failed");
            (
                StepAnswer::Error(crate::domain::steps::ToolError {
                    code: "TOOL_FAILED".into(),
                    message: "The tool failed while it ran.".into(),
                    suggestion: "Try again, or tell the user what could not be done.".into(),
                }),
                None,
            )
        })
}
