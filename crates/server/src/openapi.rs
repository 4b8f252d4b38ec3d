//! The OpenAPI document, generated from the handlers' annotations: the
//! operations are those of the router itself ([`crate::api_paths`]), so a
//! route and its operation are declared once, by the handler's
//! `#[utoipa::path]`.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "AgentEval API",
        description = "Campaigns, fixed-scenario reports and exploration sessions. Every route except GET /api/health needs the X-API-Key header: the server's own key (an admin) or a named key, whose role decides what it may call (viewer: GET only; editor: everything but /api/keys; admin: everything). Errors are {code, message, suggestion}."
    ),
    components(schemas(agenteval_engine::ErrorCode, agenteval_engine::ErrorBody)),
    modifiers(&ApiKeyScheme),
    security(("api_key" = []))
)]
struct ApiDoc;

struct ApiKeyScheme;

impl Modify for ApiKeyScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
        );
    }
}

/// The answers any route can give besides its own: 401 on every protected
/// route, 403 on every one that changes something (a viewer key may only
/// read), 400 / 413 / 422 wherever a body is read, 500 for real faults.
/// Declared once here so that the document matches what the router does.
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let error = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build()
        };
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                (false, &mut item.get),
                (true, &mut item.post),
                (true, &mut item.put),
                (true, &mut item.delete),
                (true, &mut item.patch),
            ];
            for (changes, op) in operations {
                let Some(op) = op else { continue };
                let mut add = |status: &str, description: &str| {
                    op.responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| error(description).into());
                };
                if path != "/api/health" {
                    add("401", "missing, wrong or revoked X-API-Key (UNAUTHORIZED)");
                }
                if changes {
                    add(
                        "403",
                        "the key's role may not change anything: a viewer key only reads (FORBIDDEN)",
                    );
                }
                add(
                    "500",
                    "a fault inside the platform (INTERNAL); details are logged, not sent",
                );
                if op.request_body.is_some() {
                    add("400", "malformed JSON or an invalid value (INVALID_INPUT)");
                    add("413", "the body is larger than 1 MiB (PAYLOAD_TOO_LARGE)");
                    add(
                        "422",
                        "well-formed JSON of the wrong structure, field named (UNPROCESSABLE)",
                    );
                }
                // Every route answers in the asked language and refuses one
                // it does not speak (`?lang=`, see `add_reader_language`).
                add(
                    "400",
                    "an invalid value, or a language (lang) the server does not speak (INVALID_INPUT)",
                );
            }
        }
    }
}

/// The OpenAPI 3 document of every route, with the links between
/// operations ([`crate::links`]) and the rules across fields.
pub fn document() -> serde_json::Value {
    let mut api = ApiDoc::openapi();
    api.merge(crate::api_paths());
    CommonResponses.modify(&mut api);
    let mut doc = serde_json::to_value(api).unwrap_or_default();
    crate::links::add(&mut doc);
    add_rules_across_fields(&mut doc);
    add_reader_language(&mut doc);
    doc
}

/// Every operation answers in the reader's language (the server's
/// `in_reader_language` layer): `?lang=zh|en`, else `Accept-Language`.
fn add_reader_language(doc: &mut serde_json::Value) {
    use serde_json::json;
    let lang = json!({
        "name": "lang",
        "in": "query",
        "required": false,
        "description": "The language of the answer's texts (every message's `text`, an error's `message` and `suggestion`, an export); else the first of `Accept-Language` the server speaks, else English.",
        "schema": {"type": "string", "enum": ["zh", "en"]}
    });
    let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            if !["get", "post", "put", "delete", "patch"].contains(&method.as_str()) {
                continue;
            }
            if let Some(op) = op.as_object_mut() {
                let params = op.entry("parameters").or_insert_with(|| json!([]));
                if let Some(list) = params.as_array_mut()
                    && !list.iter().any(|p| p["name"] == "lang")
                {
                    list.push(lang.clone());
                }
            }
        }
    }
}

/// What the server enforces across fields, in JSON Schema (2020-12, as
/// OpenAPI 3.1 has it), which the derive macros cannot say: a session's
/// `user_model` comes only with `played_by: "model"`, and an automatic
/// session (the default trigger) names its seeds (`seed_ref`); a campaign gives
/// either `scenario_ids` or `plan`, and its window as either `window_end`
/// or `duration_hours`. A campaign's window must also end after it starts
/// and its seeds' ids be unique, which JSON Schema cannot say.
fn add_rules_across_fields(doc: &mut serde_json::Value) {
    use serde_json::json;
    let given = |field: &str| json!({"required": [field], "properties": {field: {"not": {"type": "null"}}}});
    let schemas = &mut doc["components"]["schemas"];
    let is = |field: &str, value: &str| json!({"required": [field], "properties": {field: {"const": value}}});
    schemas["CreateSession"]["allOf"] = json!([
        {"if": given("user_model"), "then": is("played_by", "model")},
        {"if": {"not": is("trigger", "manual")}, "then": given("seed_ref")},
    ]);
    schemas["CreateCampaign"]["not"] = json!({"allOf": [given("scenario_ids"), given("plan")]});
    schemas["CreateCampaign"]["oneOf"] = json!([given("window_end"), given("duration_hours")]);
}

#[cfg(test)]
mod tests {
    /// docs/ARCHITECTURE.md names, for each operation of the API, its one
    /// core function: a route added without its line there fails here.
    #[test]
    fn the_architecture_names_the_core_function_of_every_operation() {
        let doc = include_str!("../../../docs/ARCHITECTURE.md");
        let mut missing = Vec::new();
        let api = super::document();
        for (path, item) in api["paths"].as_object().expect("paths") {
            for method in item.as_object().expect("item").keys() {
                let method = method.to_uppercase();
                if !doc.contains(&format!("`{method} {path}`")) {
                    missing.push(format!("{method} {path}"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "docs/ARCHITECTURE.md has no line for: {missing:?}"
        );
    }

    /// A parameter said to be in the path is one of the path's `{...}`
    /// segments, and each segment is declared: a query struct without
    /// `#[into_params(parameter_in = Query)]` would land in the path.
    #[test]
    fn path_parameters_are_the_paths_own_segments() {
        let doc = super::document();
        let mut wrong = Vec::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                let declared: Vec<&str> = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == "path")
                    .filter_map(|p| p["name"].as_str())
                    .collect();
                let segments: Vec<&str> = path
                    .split('/')
                    .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                    .collect();
                if declared != segments {
                    wrong.push(format!("{method} {path}: {declared:?} for {segments:?}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// The document's bounds are the engine's.
    #[test]
    fn the_campaign_bounds_are_the_engines() {
        use agenteval_engine::domain::campaign::{
            MAX_DURATION_HOURS, MAX_TIME_SCALE, MIN_DURATION_HOURS,
        };
        let doc = super::document();
        let fields = &doc["components"]["schemas"]["CreateCampaign"]["properties"];
        assert_eq!(fields["duration_hours"]["maximum"], MAX_DURATION_HOURS);
        assert_eq!(fields["duration_hours"]["minimum"], MIN_DURATION_HOURS);
        assert_eq!(fields["time_scale"]["maximum"], MAX_TIME_SCALE);
        assert_eq!(fields["time_scale"]["minimum"], 1.0);
        let session = &doc["components"]["schemas"]["CreateSession"];
        assert_eq!(
            session["properties"]["user_model"]["maxLength"],
            agenteval_engine::domain::session::MAX_USER_MODEL_CHARS
        );
        assert_eq!(
            session["allOf"][0]["then"]["properties"]["played_by"]["const"],
            "model"
        );
    }

    /// Each line of the table names the file its core function is in:
    /// the file exists in the engine and defines that function.
    #[test]
    fn the_architecture_table_points_at_the_file_that_defines_each_core_function() {
        let doc = include_str!("../../../docs/ARCHITECTURE.md");
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src");
        let mut wrong = Vec::new();
        let mut checked = 0;
        for line in doc.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let (Some(functions), Some(file)) = (cells.get(2), cells.get(3)) else {
                continue;
            };
            let file = file.trim_matches('`');
            for name in functions
                .split("`Platform::")
                .skip(1)
                .filter_map(|rest| rest.split('`').next())
            {
                checked += 1;
                let code = std::fs::read_to_string(src.join(file)).unwrap_or_default();
                if !code.contains(&format!("fn {name}(")) && !code.contains(&format!("fn {name}<"))
                {
                    wrong.push(format!("Platform::{name} is not defined in {file}"));
                }
            }
        }
        assert!(checked > 30, "the table was read: {checked} functions");
        assert!(wrong.is_empty(), "docs/ARCHITECTURE.md: {wrong:#?}");
    }
}
