//! Checks on what the agent did in a turn: the order of its calls, the
//! tools it must not call, calls to tools that are not offered, and how it
//! recovered from tool errors (seed 002 §4.3).

use super::*;
use crate::channel::{ToolCall, ToolSpec};
use crate::domain::steps::{ERRORS_BEFORE_REFLECTION, ToolError, is_subset};
use crate::i18n::Msg;
use crate::msg;
use crate::scenario::{CallOrder, ExpectedCall};

/// What a check over the steps found: passed, why, and the step (1-based)
/// it is about.
type Judged = (bool, Msg, Option<u32>);

/// The trajectory checks; `None` for any other kind.
pub(super) fn evaluate(check: &Check, ctx: &TurnContext<'_>) -> Option<Judged> {
    Some(match check {
        Check::ToolSequence { calls, order } => tool_sequence(calls, *order, ctx),
        Check::ToolNotCalled { name } => tool_not_called(name, ctx),
        Check::NoUnknownTools => no_unknown_tools(ctx),
        Check::RecoversFromError { max_repeats } => {
            recovers_from_error(max_repeats.unwrap_or(0), ctx)
        }
        _ => return None,
    })
}

/// The offered tool a call names, with arguments valid against its schema;
/// else the error the agent is answered with (seed 002 §3.3: the schema is
/// checked before anything executes).
pub fn check_call<'t>(tools: &'t [ToolSpec], call: &ToolCall) -> Result<&'t ToolSpec, ToolError> {
    let Some(tool) = tools.iter().find(|t| t.name == call.name) else {
        let offered: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(ToolError {
            code: "UNKNOWN_TOOL".into(),
            message: format!("No tool named `{}` is offered.", call.name),
            suggestion: if offered.is_empty() {
                "No tools are offered here: answer the user in words.".into()
            } else {
                format!("Call one of the offered tools: {}.", offered.join(", "))
            },
        });
    };
    let invalid = |message: String| ToolError {
        code: "INVALID_ARGUMENTS".into(),
        message,
        suggestion: format!(
            "Send `{}` a JSON object of arguments that matches its parameters schema, then call it again.",
            tool.name
        ),
    };
    if let serde_json::Value::String(raw) = &call.arguments {
        return Err(invalid(format!(
            "The arguments of `{}` are not a JSON object: {}",
            tool.name,
            truncate(raw, 200)
        )));
    }
    if tool.parameters.is_null() {
        return Ok(tool);
    }
    let validator = schema_validator(&tool.parameters)
        .map_err(|e| invalid(format!("The tool's schema cannot be read: {e}")))?;
    let problems = schema_problems(&validator, &call.arguments);
    if problems.is_empty() {
        Ok(tool)
    } else {
        Err(invalid(format!(
            "The arguments of `{}` do not match its schema: {}",
            tool.name,
            problems.join("; ")
        )))
    }
}

fn step_no(i: usize) -> u32 {
    i as u32 + 1
}

fn call_names(ctx: &TurnContext<'_>) -> Vec<String> {
    ctx.calls().map(|c| c.name.clone()).collect()
}

fn expected_matches(want: &ExpectedCall, call: &ToolCall) -> bool {
    want.name == call.name
        && want
            .arguments
            .as_ref()
            .is_none_or(|a| is_subset(a, &call.arguments))
}

fn tool_sequence(want: &[ExpectedCall], order: CallOrder, ctx: &TurnContext<'_>) -> Judged {
    let calls: Vec<&ToolCall> = ctx.calls().collect();
    let wanted: Vec<String> = want.iter().map(|w| w.name.clone()).collect();
    let pass = || {
        (
            true,
            msg!("check-sequence-pass", tools = wanted.clone()),
            None,
        )
    };
    match order {
        CallOrder::Exact => {
            for (i, w) in want.iter().enumerate() {
                match calls.get(i).copied() {
                    Some(c) if expected_matches(w, c) => {}
                    Some(c) => {
                        return (
                            false,
                            msg!(
                                "check-sequence-wrong",
                                step = step_no(i),
                                tool = w.name.as_str(),
                                called = c.name.as_str()
                            ),
                            Some(step_no(i)),
                        );
                    }
                    None => {
                        return (
                            false,
                            msg!(
                                "check-sequence-short",
                                tool = w.name.as_str(),
                                made = calls.len(),
                                tools = call_names(ctx)
                            ),
                            None,
                        );
                    }
                }
            }
            if calls.len() > want.len() {
                let extra = want.len();
                return (
                    false,
                    msg!(
                        "check-sequence-extra",
                        step = step_no(extra),
                        called = calls[extra].name.as_str()
                    ),
                    Some(step_no(extra)),
                );
            }
            pass()
        }
        CallOrder::InOrder => {
            let mut next = 0;
            for w in want {
                match calls[next..].iter().position(|c| expected_matches(w, c)) {
                    Some(at) => next += at + 1,
                    None => return missing(w, Some(next), ctx),
                }
            }
            pass()
        }
        CallOrder::AnyOrder => {
            let mut used = vec![false; calls.len()];
            for w in want {
                let found = (0..calls.len()).find(|&i| !used[i] && expected_matches(w, calls[i]));
                match found {
                    Some(i) => used[i] = true,
                    None => return missing(w, None, ctx),
                }
            }
            pass()
        }
    }
}

/// An expected call the turn lacks: after the calls already matched in
/// order, or at all.
fn missing(want: &ExpectedCall, after: Option<usize>, ctx: &TurnContext<'_>) -> Judged {
    let detail = match after {
        Some(after) => msg!(
            "check-sequence-missing",
            tool = want.name.as_str(),
            after = after,
            tools = call_names(ctx)
        ),
        None => msg!(
            "check-sequence-never",
            tool = want.name.as_str(),
            tools = call_names(ctx)
        ),
    };
    (false, detail, None)
}

fn tool_not_called(name: &str, ctx: &TurnContext<'_>) -> Judged {
    match ctx.calls().position(|c| c.name == name) {
        Some(i) => (
            false,
            msg!("check-not-called-fail", tool = name, step = step_no(i)),
            Some(step_no(i)),
        ),
        None => (true, msg!("check-not-called-pass", tool = name), None),
    }
}

fn no_unknown_tools(ctx: &TurnContext<'_>) -> Judged {
    for (i, call) in ctx.calls().enumerate() {
        if let Err(e) = check_call(&ctx.scenario.tools, call) {
            let detail = if e.code == "UNKNOWN_TOOL" {
                msg!(
                    "check-unknown-tool",
                    tool = call.name.as_str(),
                    step = step_no(i)
                )
            } else {
                msg!(
                    "check-invalid-arguments",
                    tool = call.name.as_str(),
                    step = step_no(i),
                    detail = e.message
                )
            };
            return (false, detail, Some(step_no(i)));
        }
    }
    (
        true,
        msg!("check-known-tools-pass", count = ctx.calls().count()),
        None,
    )
}

fn recovers_from_error(max_repeats: u32, ctx: &TurnContext<'_>) -> Judged {
    let steps = ctx.steps;
    let errors = steps.iter().filter(|s| s.answer.error().is_some()).count();
    if errors == 0 {
        return (true, msg!("check-recover-no-error"), None);
    }
    // An identical failing call repeated.
    for (i, failed) in steps.iter().enumerate() {
        let Some(error) = failed.answer.error() else {
            continue;
        };
        let repeats: Vec<usize> = (i + 1..steps.len())
            .filter(|&j| steps[j].same_call(failed))
            .collect();
        if let Some(&j) = repeats.get(max_repeats as usize) {
            return (
                false,
                msg!(
                    "check-recover-repeated",
                    step = step_no(j),
                    tool = failed.call.name.as_str(),
                    failed = step_no(i),
                    code = error.code.as_str(),
                    times = repeats.len()
                ),
                Some(step_no(j)),
            );
        }
    }
    // Tools called again after the reflection point.
    let mut streak = 0;
    for (i, step) in steps.iter().enumerate() {
        streak = if step.answer.error().is_some() {
            streak + 1
        } else {
            0
        };
        if streak < ERRORS_BEFORE_REFLECTION {
            continue;
        }
        let later = steps[i + 1..]
            .iter()
            .position(|s| s.round > step.round)
            .map(|k| i + 1 + k)
            .or_else(|| (!ctx.reply.tool_calls.is_empty()).then_some(steps.len()));
        if let Some(j) = later {
            return (
                false,
                msg!(
                    "check-recover-kept-calling",
                    errors = ERRORS_BEFORE_REFLECTION,
                    step = step_no(j)
                ),
                Some(step_no(j)),
            );
        }
        if ctx.reply.content.trim().is_empty() {
            return (
                false,
                msg!("check-recover-silent", errors = ERRORS_BEFORE_REFLECTION),
                None,
            );
        }
        break;
    }
    (true, msg!("check-recover-pass", errors = errors), None)
}
