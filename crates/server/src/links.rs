//! OpenAPI links: which answer's id feeds which operation. A client (and
//! schemathesis's stateful phase) follows them from a created target to its
//! campaigns, from a campaign to its report, runs, sessions and queues, from
//! a session to its messages, so that every operation that takes an id can
//! be reached with one that exists.

use serde_json::{Value, json};

/// What a link fills in the operation it leads to.
enum Fill {
    /// The path parameter `id` (or another), from the answer.
    Path(&'static str, &'static str),
    /// A query parameter, from the answer.
    Query(&'static str, &'static str),
    /// Fields of the request body, merged into a generated one.
    Body(Value),
    /// Several parameters at once (`path.id`, `query.with`), each from the answer.
    Params(&'static [(&'static str, &'static str)]),
}

/// One link: from the 200 answer of `from` to the operation `to`.
struct Link {
    from: &'static str,
    name: &'static str,
    to: &'static str,
    fill: Fill,
}

const ID: &str = "$response.body#/id";

/// Operations that take a campaign's id in their path.
const CAMPAIGN_ROUTES: &[(&str, &str)] = &[
    ("GetCampaign", "get_campaign"),
    ("Report", "campaign_report"),
    ("Export", "export_campaign"),
    ("Analysis", "campaign_analysis"),
    ("Finalize", "finalize_campaign"),
    ("NextPeriod", "next_period"),
    ("Runs", "list_runs"),
    ("SearchRuns", "search_runs"),
    ("BlindQueue", "blind_queue"),
    ("BlindRunQueue", "blind_run_queue"),
    ("Calibration", "judge_calibration"),
    ("Ledger", "campaign_ledger"),
    ("Sessions", "list_sessions"),
    ("SearchSessions", "search_sessions"),
];

/// Operations that take a session's id in their path.
const SESSION_ROUTES: &[(&str, &str)] = &[
    ("GetSession", "get_session"),
    ("SendMessage", "send_message"),
    ("Messages", "session_messages"),
    ("Close", "close_session"),
    ("Regression", "draft_regression"),
    ("Fail", "fail_session"),
];

/// Operations that take a target's id in their path.
const TARGET_ROUTES: &[(&str, &str)] = &[
    ("GetTarget", "get_target"),
    ("UpdateTarget", "update_target"),
    ("TestTarget", "test_target"),
    ("DeleteTarget", "delete_target"),
];

/// The first item's id of a list.
const FIRST_ID: &str = "$response.body#/0/id";

/// The first imported conversation's id of a page of them.
const FIRST_CONVERSATION: &str = "$response.body#/conversations/0/id";

fn links() -> Vec<Link> {
    let mut out = Vec::new();
    let by_id = |from, expr, routes: &[(&'static str, &'static str)], out: &mut Vec<Link>| {
        for &(name, to) in routes {
            out.push(Link {
                from,
                name,
                to,
                fill: Fill::Path("id", expr),
            });
        }
    };
    by_id("create_target", ID, TARGET_ROUTES, &mut out);
    by_id("list_targets", FIRST_ID, TARGET_ROUTES, &mut out);
    by_id("create_campaign", ID, CAMPAIGN_ROUTES, &mut out);
    by_id("next_period", ID, CAMPAIGN_ROUTES, &mut out);
    by_id("list_campaigns", FIRST_ID, CAMPAIGN_ROUTES, &mut out);
    by_id("create_session", ID, SESSION_ROUTES, &mut out);
    by_id("list_sessions", FIRST_ID, SESSION_ROUTES, &mut out);
    for (from, expr) in [("list_targets", FIRST_ID), ("create_target", ID)] {
        out.push(Link {
            from,
            name: "CreateCampaign",
            to: "create_campaign",
            fill: Fill::Body(json!({"target_id": expr})),
        });
    }
    for (from, expr) in [
        ("list_campaigns", FIRST_ID),
        ("create_campaign", ID),
        ("next_period", ID),
    ] {
        out.push(Link {
            from,
            name: "CreateSession",
            to: "create_session",
            fill: Fill::Body(json!({"campaign_id": expr})),
        });
        out.push(Link {
            from,
            name: "Explore",
            to: "explore",
            fill: Fill::Body(json!({"campaign_id": expr})),
        });
    }
    for (from, expr) in [("list_sessions", FIRST_ID), ("create_session", ID)] {
        out.push(Link {
            from,
            name: "Review",
            to: "add_review",
            fill: Fill::Body(json!({"subject_kind": "session", "subject_id": expr})),
        });
        out.push(Link {
            from,
            name: "Reviews",
            to: "list_reviews",
            fill: Fill::Query("subject_id", expr),
        });
    }
    out.extend([
        Link {
            from: "list_sessions",
            name: "Label",
            to: "submit_label",
            fill: Fill::Body(json!({"session_id": FIRST_ID})),
        },
        Link {
            from: "list_runs",
            name: "Turns",
            to: "run_turns",
            fill: Fill::Path("id", FIRST_ID),
        },
        Link {
            from: "list_runs",
            name: "Review",
            to: "add_review",
            fill: Fill::Body(json!({"subject_kind": "run", "subject_id": FIRST_ID})),
        },
        Link {
            from: "blind_queue",
            name: "Label",
            to: "submit_label",
            fill: Fill::Body(json!({"session_id": "$response.body#/items/0/session_id"})),
        },
        Link {
            from: "blind_run_queue",
            name: "Label",
            to: "submit_run_label",
            fill: Fill::Body(json!({"run_id": "$response.body#/items/0/run_id"})),
        },
        Link {
            from: "next_period",
            name: "CompareWithPrevious",
            to: "compare_campaigns",
            fill: Fill::Params(&[
                ("path.id", ID),
                ("query.with", "$response.body#/previous_campaign_id"),
            ]),
        },
        Link {
            from: "list_conversations",
            name: "Conversation",
            to: "get_conversation",
            fill: Fill::Path("id", FIRST_CONVERSATION),
        },
        Link {
            from: "list_conversations",
            name: "Draft",
            to: "draft_from_conversation",
            fill: Fill::Path("id", FIRST_CONVERSATION),
        },
        Link {
            from: "list_conversations",
            name: "Seeds",
            to: "propose_seeds",
            fill: Fill::Body(json!({"ids": [FIRST_CONVERSATION]})),
        },
        Link {
            from: "create_key",
            name: "Revoke",
            to: "revoke_key",
            fill: Fill::Path("name", "$response.body#/name"),
        },
    ]);
    out
}

/// Adds [`links`] to the 200 answers of `doc` (the document as JSON:
/// utoipa 5.5 writes a link's `operationId` as `operation_id`).
pub fn add(doc: &mut Value) {
    for link in links() {
        let Some(paths) = doc["paths"].as_object_mut() else {
            return;
        };
        let Some(ok) = paths
            .values_mut()
            .filter_map(|item| item.as_object_mut())
            .flat_map(|item| item.values_mut())
            .find(|op| op["operationId"] == link.from)
            .and_then(|op| op.pointer_mut("/responses/200"))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let mut built = json!({"operationId": link.to});
        match link.fill {
            Fill::Path(name, expr) => built["parameters"] = json!({format!("path.{name}"): expr}),
            Fill::Query(name, expr) => built["parameters"] = json!({format!("query.{name}"): expr}),
            Fill::Body(body) => built["requestBody"] = body,
            Fill::Params(params) => {
                built["parameters"] = params
                    .iter()
                    .map(|(name, expr)| ((*name).to_string(), json!(expr)))
                    .collect::<serde_json::Map<_, _>>()
                    .into();
            }
        }
        let links = ok.entry("links").or_insert_with(|| json!({}));
        links[link.name] = built;
    }
}

#[cfg(test)]
mod tests {
    /// Every link leaves an operation of the document and leads to one,
    /// and every path parameter it fills is the target's.
    #[test]
    fn every_link_joins_two_operations_of_the_document() {
        let doc = crate::openapi::document();
        let mut ops = std::collections::HashMap::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for op in item.as_object().expect("item").values() {
                if let Some(id) = op["operationId"].as_str() {
                    ops.insert(id.to_string(), (path.clone(), op.clone()));
                }
            }
        }
        let mut seen = 0;
        for (path, op) in ops.values() {
            let Some(links) = op["responses"]["200"]["links"].as_object() else {
                continue;
            };
            for (name, link) in links {
                seen += 1;
                let to = link["operationId"].as_str().expect("operationId");
                let (to_path, _) = ops
                    .get(to)
                    .unwrap_or_else(|| panic!("{path} link {name} leads to no operation {to}"));
                for param in link["parameters"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k)
                {
                    if let Some(segment) = param.strip_prefix("path.") {
                        assert!(
                            to_path.contains(&format!("{{{segment}}}")),
                            "{path} link {name}: {to_path} has no {segment}"
                        );
                    }
                }
            }
        }
        assert!(seen >= 40, "the links are in the document: {seen}");
    }
}
