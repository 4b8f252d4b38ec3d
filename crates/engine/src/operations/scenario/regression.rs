//! A regression scenario drafted from an exploration finding: the user's
//! turns of the session up to the flagged one are the script, and the
//! flagged reply's fault becomes the check that it must not happen again
//! (an invented figure -> `no_unverified_numbers` with the seed facts; a
//! repeated reply -> `no_repeat`; a missing question back ->
//! `asks_clarification`; otherwise a rubric from the judge's finding). A
//! turn the judge found nothing at can be flagged by a person: its reply
//! becomes the rubric's example of what must not happen again. The draft
//! is a pack file the user reviews before saving, with its lineage.

use super::{Check, Lineage};
use crate::domain::campaign::fact_text;
use crate::domain::findings::JudgeFinding;
use crate::domain::ids::SessionId;
use crate::error::{Error, Result};
use crate::exploration::session::TurnRole;
use crate::i18n::Lang;
use crate::msg;
use crate::platform::Platform;
use serde::{Deserialize, Serialize};

/// The pack regression scenarios go to unless another is named.
pub const DEFAULT_PACK: &str = "regressions";

/// A drafted regression scenario: its pack file's text, ready to review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RegressionDraft {
    pub pack: String,
    pub scenario_id: String,
    /// The file name within the pack's folder.
    pub file_name: String,
    /// The pack file (YAML), with the scenario's lineage in it.
    pub yaml: String,
    pub lineage: Lineage,
}

#[derive(Serialize)]
struct OutFile {
    scenarios: Vec<OutScenario>,
}

/// A drafted scenario as its pack file writes it.
#[derive(Serialize)]
pub(crate) struct OutScenario {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "without_unset"
    )]
    pub tools: Vec<crate::domain::chat::ToolSpec>,
    pub turns: Vec<OutTurn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lineage: Option<Lineage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_traces: Option<crate::domain::scenario::TraceLineage>,
}

#[derive(Serialize)]
pub(crate) struct OutTurn {
    pub user: String,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "without_unset"
    )]
    pub checks: Vec<Check>,
}

/// Items as the pack file's author would write them: without the fields
/// left out (`null`) or the empty description of a tool, which the loader
/// reads back the same.
fn without_unset<T: Serialize, S: serde::Serializer>(
    items: &[T],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::{Error as _, SerializeSeq};
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for item in items {
        let mut value = serde_json::to_value(item).map_err(S::Error::custom)?;
        if let serde_json::Value::Object(fields) = &mut value {
            fields.retain(|k, v| !(v.is_null() || (k == "description" && v.as_str() == Some(""))));
        }
        seq.serialize_element(&value)?;
    }
    seq.end()
}

/// The pack file (YAML) of one drafted scenario and its file's name,
/// checked to load before it is shown.
pub(crate) fn pack_file(scenario: OutScenario, pack: &str) -> Result<(String, String)> {
    let file_name = format!("{}.yaml", scenario.id);
    let yaml = serde_yaml_ng::to_string(&OutFile {
        scenarios: vec![scenario],
    })
    .map_err(Error::internal)?;
    super::loader::parse_file(&yaml, &file_name, &file_name, pack).map_err(|errors| {
        Error::internal(anyhow::anyhow!(
            "the drafted scenario does not load: {errors:?}"
        ))
    })?;
    Ok((yaml, file_name))
}

/// The key of a finding's message, when the built-in judge wrote it.
fn key_of(f: &JudgeFinding) -> Option<&str> {
    match &f.text {
        crate::i18n::Text::Msg(m) => Some(m.key.as_str()),
        _ => None,
    }
}

/// The check that guards against what the finding found; a rubric is
/// written in the reader's language.
fn check_for(f: &JudgeFinding, lang: Lang) -> Check {
    let english = f.text.render(Lang::En).to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| english.contains(w));
    let dimension = f.dimension.as_deref().unwrap_or_default();
    let key = key_of(f);
    if key == Some("judge-unknown-tool") {
        Check::NoUnknownTools
    } else if key == Some("judge-repeated-failed-call") {
        Check::RecoversFromError { max_repeats: None }
    } else if matches!(
        key,
        Some("judge-invented-figure" | "judge-invented-figure-tools")
    ) || dimension == "hallucination"
        || has(&["invented", "unverified", "made up", "编造"])
    {
        Check::NoUnverifiedNumbers
    } else if key_of(f) == Some("judge-repeated-reply") || has(&["repeat", "重复"]) {
        Check::NoRepeat
    } else if has(&["clarif", "ask back", "asked for", "澄清", "追问"]) {
        Check::AsksClarification { field: None }
    } else {
        Check::Rubric {
            rubric: rubric_for(f, lang),
            min_score: None,
        }
    }
}

/// A rubric's sentence in `lang`: a turn a person flagged quotes its
/// reply; a finding of the judge is quoted as found.
fn rubric_for(f: &JudgeFinding, lang: Lang) -> String {
    match &f.text {
        crate::i18n::Text::Msg(m) if m.key == "regression-flagged-turn" => {
            let arg = |name: &str| {
                m.args
                    .get(name)
                    .cloned()
                    .unwrap_or(crate::i18n::Arg::Int(0))
            };
            msg!(
                "regression-rubric-flagged",
                turn = arg("turn"),
                reply = arg("reply")
            )
            .render(lang)
        }
        text => msg!("regression-rubric", finding = text.render(lang)).render(lang),
    }
}

/// The finding a draft guards against: at `turn` when given (the poorest
/// there), else the session's poorest finding with a turn.
fn pick(findings: &[JudgeFinding], turn: Option<u32>) -> Option<&JudgeFinding> {
    let rank = |f: &JudgeFinding| crate::domain::judge_review::severity_rank(&f.severity);
    findings
        .iter()
        .filter(|f| f.turn.is_some_and(|t| t > 0) && turn.is_none_or(|t| f.turn == Some(t)))
        .filter(|f| rank(f) <= 1)
        .min_by_key(|f| (rank(f), f.turn))
}

/// A turn the judge found nothing at, flagged by a person: its reply is
/// what must not happen again. 409 when the session has no such turn.
fn flagged_turn(
    transcript: &crate::exploration::SessionTranscript,
    turn: u32,
) -> Result<JudgeFinding> {
    let mut round = 0;
    let mut seen = false;
    let mut reply = None;
    for m in &transcript.messages {
        if m.role == TurnRole::User {
            round += 1;
            seen |= round == turn;
        } else if round == turn && reply.is_none() {
            reply = Some(m.content.as_str());
        }
    }
    if !seen {
        return Err(Error::msg(
            crate::error::ErrorCode::Conflict,
            msg!("error-regression-turn", turn = turn, turns = round),
            msg!("error-regression-no-finding-suggestion"),
        ));
    }
    Ok(JudgeFinding {
        session_id: transcript.session.id,
        severity: "poor".into(),
        dimension: None,
        text: crate::i18n::Text::Msg(msg!(
            "regression-flagged-turn",
            turn = turn,
            reply = crate::text::truncate(reply.unwrap_or_default(), 160)
        )),
        evidence: None,
        turn: Some(turn),
        step: None,
    })
}

impl Platform {
    /// Drafts a regression scenario from session `session_id`, at its user
    /// turn `turn` (1-based: its poorest judge finding there, else the turn
    /// as a person flags it) or at its poorest judge finding. The draft is
    /// checked as a pack file before it is returned.
    pub async fn draft_regression(
        &self,
        session_id: SessionId,
        turn: Option<u32>,
        pack: Option<String>,
        lang: Lang,
    ) -> Result<RegressionDraft> {
        let transcript = self.session_messages(session_id).await?;
        let session = &transcript.session;
        let findings = session
            .judge_review
            .as_ref()
            .map(|r| crate::domain::judge_review::review_findings(session_id, &r["findings"]))
            .unwrap_or_default();
        // The session's state, not the request, is what is missing: 409.
        let finding = match (pick(&findings, turn), turn) {
            (Some(f), _) => f.clone(),
            (None, Some(t)) if t > 0 => flagged_turn(&transcript, t)?,
            (None, _) => {
                return Err(Error::msg(
                    crate::error::ErrorCode::Conflict,
                    msg!("error-regression-no-finding"),
                    msg!("error-regression-no-finding-suggestion"),
                ));
            }
        };
        let finding = &finding;
        let at = finding.turn.unwrap_or(1);
        let users: Vec<String> = transcript
            .messages
            .iter()
            .filter(|m| m.role == TurnRole::User)
            .take(at as usize)
            .map(|m| m.content.clone())
            .collect();
        if users.len() < at as usize {
            return Err(Error::msg(
                crate::error::ErrorCode::Conflict,
                msg!("error-regression-turn", turn = at, turns = users.len()),
                msg!("error-regression-no-finding-suggestion"),
            ));
        }
        let pack = pack.unwrap_or_else(|| DEFAULT_PACK.to_string());
        let id_tail: String = session_id.to_string().replace('-', "");
        let scenario_id = format!("regression.{}.t{at}", &id_tail[id_tail.len() - 12..]);
        let finding_text = finding.text.render(lang);
        let lineage = Lineage {
            campaign_id: session.campaign_id,
            session_id,
            turn: at,
            finding: finding_text.clone(),
        };
        let check = check_for(finding, lang);
        let facts = match check {
            Check::NoUnverifiedNumbers => session
                .goal
                .get("slots")
                .and_then(|s| s.as_object())
                .map(|slots| slots.values().filter_map(fact_text).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let turns = users
            .into_iter()
            .enumerate()
            .map(|(i, user)| OutTurn {
                user,
                checks: if i + 1 == at as usize {
                    vec![check.clone()]
                } else {
                    Vec::new()
                },
            })
            .collect();
        let title = crate::text::truncate(
            &msg!("regression-title", finding = finding_text.as_str()).render(lang),
            120,
        );
        let (yaml, file_name) = pack_file(
            OutScenario {
                id: scenario_id.clone(),
                title,
                tags: vec!["regression".into()],
                facts,
                tools: Vec::new(),
                turns,
                lineage: Some(lineage.clone()),
                from_traces: None,
            },
            &pack,
        )?;
        Ok(RegressionDraft {
            pack,
            scenario_id,
            file_name,
            yaml,
            lineage,
        })
    }
}

/// The longest pack file saved through the API, in characters.
pub const MAX_PACK_FILE_CHARS: usize = 65_536;

/// A pack file to save among the user's packs (`<data-dir>/scenarios/<pack>/<file_name>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SaveScenarioFile {
    /// The pack (its folder): letters, digits, `_`, `-`, `.`.
    #[schema(pattern = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$", max_length = 64)]
    pub pack: String,
    /// The file's name in the pack, ending in `.yaml` or `.yml`.
    #[schema(pattern = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*\.ya?ml$", max_length = 128)]
    pub file_name: String,
    /// The pack file's text (YAML), as `scenarios/README.md` describes it;
    /// at most [`MAX_PACK_FILE_CHARS`] characters.
    #[schema(max_length = 65536)]
    pub yaml: String,
}

fn plain_name(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl Platform {
    /// Saves a pack file among the user's packs after checking it loads
    /// (every error named by line), that its scenario ids are not another
    /// file's, then loads it: the next campaign and `agenteval run` use it.
    pub async fn save_scenario_file(
        &self,
        req: SaveScenarioFile,
    ) -> Result<Vec<crate::scenario::ScenarioSummary>> {
        let yaml_name = req.file_name.ends_with(".yaml") || req.file_name.ends_with(".yml");
        if !plain_name(&req.pack, 64) || !plain_name(&req.file_name, 128) || !yaml_name {
            return Err(Error::invalid_msg(
                msg!(
                    "error-pack-file-name",
                    pack = req.pack.as_str(),
                    file = req.file_name.as_str()
                ),
                msg!("error-pack-file-name-suggestion"),
            ));
        }
        let chars = req.yaml.chars().count();
        if chars > MAX_PACK_FILE_CHARS {
            return Err(Error::invalid_msg(
                msg!(
                    "error-pack-file-too-long",
                    chars = chars,
                    max = MAX_PACK_FILE_CHARS
                ),
                msg!("error-pack-file-too-long-suggestion"),
            ));
        }
        let shown = format!("{}/{}", req.pack, req.file_name);
        let scenarios =
            super::loader::parse_file(&req.yaml, &shown, &shown, &req.pack).map_err(|errors| {
                // The first problem, in the reader's words where the
                // catalogue has them; how many more.
                let first = &errors[0];
                let more = errors.len() - 1;
                Error::invalid_msg(
                    msg!(
                        "error-pack-file-line",
                        file = first.file.as_str(),
                        line = first.line,
                        problem = first.said.clone().map_or_else(
                            || crate::i18n::Arg::from(first.message.as_str()),
                            crate::i18n::Arg::Msg
                        ),
                        more = if more > 0 {
                            msg!("error-pack-file-more", count = more).into()
                        } else {
                            crate::i18n::Arg::Str(String::new())
                        }
                    ),
                    msg!("error-pack-file-invalid-suggestion"),
                )
            })?;
        for s in &scenarios {
            if let Some(other) = self.scenarios.get(&s.id)
                && (other.pack != req.pack || other.source_file != shown)
            {
                return Err(Error::msg(
                    crate::error::ErrorCode::Conflict,
                    msg!(
                        "error-pack-file-duplicate",
                        id = s.id.as_str(),
                        other = other.source_file.as_str()
                    ),
                    msg!("error-pack-file-duplicate-suggestion"),
                ));
            }
        }
        let dir = super::user_packs_dir(&self.data_dir).join(&req.pack);
        let path = dir.join(&req.file_name);
        tokio::fs::create_dir_all(&dir)
            .await
            .map_err(Error::internal)?;
        tokio::fs::write(&path, req.yaml.as_bytes())
            .await
            .map_err(Error::internal)?;
        self.load_scenarios(&[super::user_packs_dir(&self.data_dir)])
            .await?;
        Ok(scenarios
            .iter()
            .map(crate::scenario::ScenarioSummary::from)
            .collect())
    }
}
