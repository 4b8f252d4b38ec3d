//! The OpenAPI document, generated from the handlers' annotations.

use crate::routes;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "AgentEval API",
        description = "Campaigns, fixed-scenario reports and exploration sessions. Every route except GET /api/health needs the X-API-Key header. Errors are {code, message, suggestion}."
    ),
    paths(
        routes::health,
        routes::openapi,
        routes::create_target,
        routes::list_targets,
        routes::get_target,
        routes::list_scenarios,
        routes::create_campaign,
        routes::list_campaigns,
        routes::get_campaign,
        routes::finalize_campaign,
        routes::campaign_report,
        routes::export_campaign,
        routes::campaign_analysis,
        routes::patrol,
        routes::patrol_agent_status,
        routes::pause_patrol_agent,
        routes::resume_patrol_agent,
        routes::create_session,
        routes::get_session,
        routes::send_message,
        routes::session_messages,
        routes::close_session,
        routes::fail_session,
        routes::list_sessions,
        routes::campaign_ledger,
        routes::test_target,
        routes::list_runs,
        routes::run_turns,
        routes::add_review,
        routes::next_period,
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

/// The OpenAPI 3 document of every route.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
