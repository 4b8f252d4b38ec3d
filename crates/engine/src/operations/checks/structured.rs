//! Checks on the reply's structure: JSONPath values and the tools it called.

use super::*;
use crate::i18n::Msg;
use crate::msg;

pub(super) fn json_path_check(
    path: &str,
    equals: Option<&serde_json::Value>,
    ctx: &TurnContext<'_>,
) -> (bool, Msg) {
    let parsed = match json_path(path) {
        Ok(p) => p,
        Err(e) => {
            return (
                false,
                msg!("check-json-bad-path", path = path, detail = e.to_string()),
            );
        }
    };
    let mut documents: Vec<(Msg, Cow<'_, serde_json::Value>)> = Vec::new();
    if let Some(v) = crate::text::json_in(&ctx.reply.content) {
        documents.push((msg!("check-doc-reply"), Cow::Owned(v)));
    }
    for call in ctx.calls() {
        documents.push((
            msg!("check-doc-tool", tool = call.name.as_str()),
            Cow::Borrowed(&call.arguments),
        ));
    }
    if documents.is_empty() {
        return (false, msg!("check-json-no-document"));
    }
    let mut seen: Option<Msg> = None;
    for (label, doc) in &documents {
        let nodes = parsed.query(doc).all();
        if nodes.is_empty() {
            continue;
        }
        let found = |value: String| {
            msg!(
                "check-json-has",
                document = label.clone(),
                path = path,
                value = value
            )
        };
        match equals {
            None => return (true, found(truncate(&nodes[0].to_string(), 80))),
            Some(want) => {
                if nodes.iter().any(|n| json_equal(n, want)) {
                    return (true, found(want.to_string()));
                }
                seen.get_or_insert_with(|| found(truncate(&nodes[0].to_string(), 80)));
            }
        }
    }
    match (equals, seen) {
        (Some(want), Some(seen)) => (
            false,
            msg!(
                "check-json-expected",
                path = path,
                want = want.to_string(),
                seen = seen
            ),
        ),
        _ => (false, msg!("check-json-nothing", path = path)),
    }
}

/// Equality that treats 3 and 3.0 as the same number.
pub(super) fn json_equal(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

pub(super) fn tool_called_check(
    name: &str,
    schema: Option<&serde_json::Value>,
    ctx: &TurnContext<'_>,
) -> (bool, Msg) {
    let calls: Vec<_> = ctx.calls().filter(|c| c.name == name).collect();
    if calls.is_empty() {
        let made: Vec<String> = ctx.calls().map(|c| c.name.clone()).collect();
        let made = if made.is_empty() {
            msg!("check-tool-none-made")
        } else {
            msg!("check-tool-others", tools = made)
        };
        return (
            false,
            msg!("check-tool-not-called", tool = name, made = made),
        );
    }
    let Some(schema) = schema else {
        return (true, msg!("check-tool-called", tool = name));
    };
    let validator = match schema_validator(schema) {
        Ok(v) => v,
        Err(e) => return (false, msg!("check-tool-bad-schema", detail = e)),
    };
    let mut problems = Vec::new();
    for call in &calls {
        let errors = schema_problems(&validator, &call.arguments);
        if errors.is_empty() {
            return (
                true,
                msg!(
                    "check-tool-valid",
                    tool = name,
                    arguments = truncate(&call.arguments.to_string(), 200)
                ),
            );
        }
        problems.push(errors.join("; "));
    }
    (
        false,
        msg!(
            "check-tool-invalid",
            tool = name,
            problems = problems.join(" | ")
        ),
    )
}
