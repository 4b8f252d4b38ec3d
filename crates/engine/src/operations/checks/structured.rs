//! Checks on the reply's structure: JSONPath values and the tools it called.

use super::*;

pub(super) fn json_path_check(
    path: &str,
    equals: Option<&serde_json::Value>,
    reply: &ChatReply,
) -> (bool, String) {
    let parsed = match json_path(path) {
        Ok(p) => p,
        Err(e) => return (false, format!("`{path}` is not a valid JSONPath: {e}")),
    };
    let mut documents: Vec<(String, Cow<'_, serde_json::Value>)> = Vec::new();
    if let Some(v) = crate::text::json_in(&reply.content) {
        documents.push(("the reply's JSON".into(), Cow::Owned(v)));
    }
    for call in &reply.tool_calls {
        documents.push((
            format!("the arguments of tool call `{}`", call.name),
            Cow::Borrowed(&call.arguments),
        ));
    }
    if documents.is_empty() {
        return (
            false,
            "the reply holds no JSON and made no tool call, so there is nothing to query".into(),
        );
    }
    let mut seen = Vec::new();
    for (label, doc) in &documents {
        let nodes = parsed.query(doc).all();
        if nodes.is_empty() {
            continue;
        }
        match equals {
            None => {
                return (
                    true,
                    format!(
                        "{label} has {path} = {}",
                        truncate(&nodes[0].to_string(), 80)
                    ),
                );
            }
            Some(want) => {
                if nodes.iter().any(|n| json_equal(n, want)) {
                    return (true, format!("{label} has {path} = {want}"));
                }
                seen.push(format!(
                    "{label} has {path} = {}",
                    truncate(&nodes[0].to_string(), 80)
                ));
            }
        }
    }
    match equals {
        Some(want) if !seen.is_empty() => (
            false,
            format!("expected {path} = {want}, but {}", seen.join("; ")),
        ),
        _ => (
            false,
            format!(
                "{path} finds nothing in {}",
                documents
                    .iter()
                    .map(|(l, _)| l.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ),
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
    reply: &ChatReply,
) -> (bool, String) {
    let calls: Vec<_> = reply.tool_calls.iter().filter(|c| c.name == name).collect();
    if calls.is_empty() {
        let made = if reply.tool_calls.is_empty() {
            "it made no tool call".to_string()
        } else {
            format!(
                "it called {}",
                quoted_list(reply.tool_calls.iter().map(|c| c.name.as_str()))
            )
        };
        return (false, format!("the target did not call `{name}`; {made}"));
    }
    let Some(schema) = schema else {
        return (true, format!("the target called `{name}`"));
    };
    let validator = match schema_validator(schema) {
        Ok(v) => v,
        Err(e) => return (false, format!("the arguments schema is invalid: {e}")),
    };
    let mut problems = Vec::new();
    for call in &calls {
        let errors: Vec<String> = validator
            .iter_errors(&call.arguments)
            .take(5)
            .map(|e| {
                let at = e.instance_path.to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if errors.is_empty() {
            return (
                true,
                format!(
                    "the target called `{name}` with arguments that match the schema: {}",
                    truncate(&call.arguments.to_string(), 200)
                ),
            );
        }
        problems.push(errors.join("; "));
    }
    (
        false,
        format!(
            "the target called `{name}` but its arguments do not match the schema: {}",
            problems.join(" | ")
        ),
    )
}
