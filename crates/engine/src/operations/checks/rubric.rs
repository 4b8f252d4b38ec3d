//! Rubric checks: graded by the judge model, else by a coarse heuristic
//! (labelled as such).

use super::*;
use crate::i18n::Msg;
use crate::msg;

pub(super) static WORD_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z]{4,}|\p{Han}{2}").expect("static regex"));

/// Scores a reply without a model: catches empty, too short, refusing and
/// repetitive replies; otherwise middling, better when it uses the rubric's
/// own words. Deliberately coarse: it is a fallback, labelled as such.
pub fn heuristic_score(reply: &str, rubric: &str) -> (u8, Msg) {
    let text = reply.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return (1, msg!("rubric-empty"));
    }
    if chars < 10 {
        return (2, msg!("rubric-short", chars = chars));
    }
    if crate::text::is_refusal(text) {
        return (2, msg!("rubric-refuses"));
    }
    let sentences: Vec<&str> = text
        .split(['.', '。', '!', '！', '?', '？', '\n'])
        .map(str::trim)
        .filter(|s| s.chars().count() > 3)
        .collect();
    let distinct: BTreeSet<&str> = sentences.iter().copied().collect();
    if sentences.len() >= 3 && distinct.len() * 2 <= sentences.len() {
        return (2, msg!("rubric-repeats"));
    }
    let rubric_words: BTreeSet<String> = WORD_RE
        .find_iter(&rubric.to_lowercase())
        .map(|m| m.as_str().to_string())
        .collect();
    let lower = text.to_lowercase();
    let hits = rubric_words.iter().filter(|w| lower.contains(*w)).count();
    if chars >= 40 && hits >= 2 {
        (4, msg!("rubric-substantive", hits = hits))
    } else {
        (3, msg!("rubric-plausible"))
    }
}

#[derive(Deserialize)]
pub(super) struct JudgeVerdict {
    pub(super) score: serde_json::Value,
    #[serde(default)]
    pub(super) reason: Option<String>,
}

pub(super) static SCORE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?i)score["'\s:=]*([1-5])"#).expect("static regex"));

/// Reads `{score, reason}` from a judge's answer, tolerating prose around
/// it, a string score ("4"), or a score given only in words ("score: 4").
pub fn parse_judge_score(answer: &str) -> Option<(u8, String)> {
    if let Some(v) = crate::text::json_in(answer)
        && let Ok(verdict) = serde_json::from_value::<JudgeVerdict>(v)
    {
        let score = match &verdict.score {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        if let Some(s) = score
            && (1.0..=5.0).contains(&s)
        {
            return Some((s.round() as u8, verdict.reason.unwrap_or_default()));
        }
    }
    SCORE_RE
        .captures(answer)
        .and_then(|c| c[1].parse::<u8>().ok())
        .map(|s| (s, truncate(answer.trim(), 200)))
}

/// A rubric check's outcome: the verdict against the minimum, the detail,
/// and the score with who gave it.
pub(super) struct Graded {
    pub(super) passed: bool,
    pub(super) detail: Msg,
    pub(super) score: u8,
    pub(super) judged_by: JudgeMethod,
}

impl Graded {
    /// The offline heuristic's grade; `why_not_model` says why the model
    /// did not grade (nothing when there is no judge model).
    fn heuristic(reply: &str, rubric: &str, min: u8, why_not_model: Option<Msg>) -> Self {
        let (score, why) = heuristic_score(reply, rubric);
        let heuristic = msg!("rubric-heuristic", score = score, min = min, why = why);
        Graded {
            passed: score >= min,
            detail: match why_not_model {
                Some(why_not) => msg!("rubric-fallback", why_not = why_not, grade = heuristic),
                None => heuristic,
            },
            score,
            judged_by: JudgeMethod::Heuristic,
        }
    }
}

pub(super) async fn rubric_check(
    rubric: &str,
    min: u8,
    ctx: &TurnContext<'_>,
    judge: Option<&dyn Channel>,
) -> Graded {
    let Some(judge) = judge else {
        return Graded::heuristic(&ctx.reply.content, rubric, min, None);
    };
    let conversation: String = ctx
        .history
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .map(|m| {
            let who = if m.role == Role::User {
                "User"
            } else {
                "Agent"
            };
            format!("{who}: {}", truncate(&m.content, 1500))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let prompt = format!(
        "You grade one reply of an AI agent.\n\nRubric: {rubric}\n\nConversation so far:\n{conversation}\n\nReply to grade:\n{}\n\nAnswer with JSON only: {{\"score\": <integer 1-5, 5 = fully meets the rubric>, \"reason\": \"<one sentence>\"}}",
        truncate(&ctx.reply.content, 4000)
    );
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("You are a strict, fair evaluator. You answer with JSON only."),
            ChatMessage::user(prompt),
        ],
        tools: Default::default(),
    };
    match judge.send(&request).await {
        Ok(answer) => match parse_judge_score(&answer.content) {
            Some((score, reason)) => Graded {
                passed: score >= min,
                detail: msg!("rubric-judged", score = score, min = min, reason = reason),
                score,
                judged_by: JudgeMethod::Model,
            },
            None => Graded::heuristic(
                &ctx.reply.content,
                rubric,
                min,
                Some(msg!("rubric-judge-unusable")),
            ),
        },
        Err(e) => Graded::heuristic(
            &ctx.reply.content,
            rubric,
            min,
            Some(msg!("rubric-judge-unreachable", detail = e.to_string())),
        ),
    }
}
