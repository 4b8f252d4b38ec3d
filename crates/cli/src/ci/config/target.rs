//! The target of `agenteval.yaml`: its kind and what each kind needs, the
//! keys and header values from the environment, its limits.

use super::lines::nth_line;
use super::{Checker, line_of};
use agenteval_engine::target::{BuiltinAgent, ChannelConfig, Header, TargetSettings};
use serde::Deserialize;

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum TargetKind {
    Openai,
    Http,
    Builtin,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TargetDef {
    kind: TargetKind,
    #[serde(default)]
    name: Option<String>,
    // openai
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    api_key_env: Option<String>,
    /// Present only to be refused with a clear message.
    #[serde(default)]
    api_key: Option<serde_yaml_ng::Value>,
    // http
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    request_template: Option<serde_json::Value>,
    #[serde(default)]
    response_path: Option<String>,
    #[serde(default)]
    headers: Vec<HeaderDef>,
    // builtin
    #[serde(default)]
    agent: Option<String>,
    // limits
    #[serde(default)]
    concurrency: Option<u32>,
    #[serde(default)]
    rate_per_second: Option<f64>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    max_retries: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HeaderDef {
    name: String,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    value_env: Option<String>,
}

fn kind_name(k: TargetKind) -> &'static str {
    match k {
        TargetKind::Openai => "openai",
        TargetKind::Http => "http",
        TargetKind::Builtin => "builtin",
    }
}

impl Checker<'_> {
    /// The target to create, as the config describes it; a config's
    /// `name` names it unless it has its own.
    pub(super) fn target(&mut self, t: &TargetDef, config_name: Option<&String>) -> TargetSettings {
        if t.api_key.is_some() {
            self.error(
                line_of(self.text, &["target", "api_key"]),
                "keys are never written in the config: name the environment variable that holds it with `api_key_env`".into(),
            );
        }
        let headers = self.headers(t);
        let channel = self.channel(t, headers);
        self.fields_of_other_kinds(t);
        self.limits(t);
        TargetSettings {
            name: t
                .name
                .clone()
                .or_else(|| config_name.cloned())
                .unwrap_or_else(|| "Agent under test".into()),
            channel,
            concurrency: t.concurrency,
            rate_per_second: t.rate_per_second,
            timeout_ms: t.timeout_ms,
            max_retries: t.max_retries,
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        }
    }

    /// The headers sent to the target, each with its value or the
    /// environment variable that holds it (one of them).
    fn headers(&mut self, t: &TargetDef) -> Vec<Header> {
        let mut headers = Vec::new();
        for (i, h) in t.headers.iter().enumerate() {
            let line = nth_line(self.text, &["target", "headers"], "name:", i);
            match (&h.value, &h.value_env) {
                (Some(v), None) => headers.push(Header {
                    name: h.name.clone(),
                    value: v.clone(),
                }),
                (None, Some(var)) => match (self.env)(var) {
                    Some(v) => headers.push(Header {
                        name: h.name.clone(),
                        value: v,
                    }),
                    None => self.error(
                        line,
                        format!("header {:?}: the environment variable {var} is not set", h.name),
                    ),
                },
                _ => self.error(
                    line,
                    format!(
                        "header {:?}: give `value` or `value_env` (the environment variable holding it), one of them",
                        h.name
                    ),
                ),
            }
        }
        headers
    }

    /// The target's channel: what its kind needs, its URL, its key's
    /// environment variable.
    fn channel(&mut self, t: &TargetDef, headers: Vec<Header>) -> ChannelConfig {
        match t.kind {
            TargetKind::Openai => {
                self.need(t, "base_url", &t.base_url);
                self.need(t, "model", &t.model);
                self.check_url("base_url", &t.base_url);
                if let Some(var) = &t.api_key_env
                    && (self.env)(var).is_none()
                {
                    self.error(
                        line_of(self.text, &["target", "api_key_env"]),
                        format!("the environment variable {var} is not set (it should hold the target's key)"),
                    );
                }
                ChannelConfig::Openai {
                    base_url: t.base_url.clone().unwrap_or_default(),
                    model: t.model.clone().unwrap_or_default(),
                    api_key: None,
                    api_key_env: t.api_key_env.clone(),
                    api_key_ref: None,
                    headers,
                }
            }
            TargetKind::Http => {
                self.need(t, "url", &t.url);
                self.check_url("url", &t.url);
                ChannelConfig::Http {
                    url: t.url.clone().unwrap_or_default(),
                    request_template: t.request_template.clone(),
                    response_path: t.response_path.clone(),
                    headers,
                }
            }
            TargetKind::Builtin => {
                if t.agent.as_deref().is_some_and(|a| a != "demo") {
                    self.error(
                        line_of(self.text, &["target", "agent"]),
                        format!(
                            "unknown built-in agent {:?}: the only one is `demo`",
                            t.agent.as_deref().unwrap_or_default()
                        ),
                    );
                }
                ChannelConfig::Builtin {
                    agent: BuiltinAgent::Demo,
                }
            }
        }
    }

    /// A field the target's kind needs, missing or blank.
    fn need(&mut self, t: &TargetDef, field: &str, v: &Option<String>) {
        if v.as_deref().is_none_or(|s| s.trim().is_empty()) {
            self.error(
                line_of(self.text, &["target", "kind"]),
                format!("a target of kind {:?} needs `{field}`", kind_name(t.kind)),
            );
        }
    }

    /// A URL of the target: http:// or https://.
    fn check_url(&mut self, field: &str, v: &Option<String>) {
        if let Some(u) = v
            && !(u.starts_with("http://") || u.starts_with("https://"))
        {
            self.error(
                line_of(self.text, &["target", field]),
                format!("`{field}` must be an http:// or https:// URL, got {u:?}"),
            );
        }
    }

    /// The fields of another kind of target, which do not apply.
    fn fields_of_other_kinds(&mut self, t: &TargetDef) {
        for (field, wrong) in [
            (
                "base_url",
                t.kind != TargetKind::Openai && t.base_url.is_some(),
            ),
            ("model", t.kind != TargetKind::Openai && t.model.is_some()),
            (
                "api_key_env",
                t.kind != TargetKind::Openai && t.api_key_env.is_some(),
            ),
            ("url", t.kind != TargetKind::Http && t.url.is_some()),
            (
                "request_template",
                t.kind != TargetKind::Http && t.request_template.is_some(),
            ),
            (
                "response_path",
                t.kind != TargetKind::Http && t.response_path.is_some(),
            ),
            ("agent", t.kind != TargetKind::Builtin && t.agent.is_some()),
        ] {
            if wrong {
                self.error(
                    line_of(self.text, &["target", field]),
                    format!(
                        "`{field}` does not apply to a target of kind {:?}",
                        kind_name(t.kind)
                    ),
                );
            }
        }
    }

    /// The target's concurrency, rate and timeout, in range.
    fn limits(&mut self, t: &TargetDef) {
        if let Some(c) = t.concurrency
            && !(1..=256).contains(&c)
        {
            self.error(
                line_of(self.text, &["target", "concurrency"]),
                format!("`concurrency` must be from 1 to 256, got {c}"),
            );
        }
        if let Some(r) = t.rate_per_second
            && !(r > 0.0 && r.is_finite())
        {
            self.error(
                line_of(self.text, &["target", "rate_per_second"]),
                format!("`rate_per_second` must be greater than 0, got {r}"),
            );
        }
        if t.timeout_ms == Some(0) {
            self.error(
                line_of(self.text, &["target", "timeout_ms"]),
                "`timeout_ms` must be greater than 0".into(),
            );
        }
    }
}
