//! Rubric checks: graded by the judge model, else by a coarse heuristic
//! (labelled as such).

use super::*;

pub(super) static WORD_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z]{4,}|\p{Han}{2}").expect("static regex"));

/// Scores a reply without a model: catches empty, too short, refusing and
/// repetitive replies; otherwise middling, better when it uses the rubric's
/// own words. Deliberately coarse: it is a fallback, labelled as such.
pub fn heuristic_score(reply: &str, rubric: &str) -> (u8, String) {
    let text = reply.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return (1, "the reply is empty".into());
    }
    if chars < 10 {
        return (2, format!("the reply is very short ({chars} characters)"));
    }
    if crate::text::is_refusal(text) {
        return (2, "the reply refuses or says it cannot help".into());
    }
    let sentences: Vec<&str> = text
        .split(['.', '。', '!', '！', '?', '？', '\n'])
        .map(str::trim)
        .filter(|s| s.chars().count() > 3)
        .collect();
    let distinct: BTreeSet<&str> = sentences.iter().copied().collect();
    if sentences.len() >= 3 && distinct.len() * 2 <= sentences.len() {
        return (2, "the reply repeats the same sentences".into());
    }
    let rubric_words: BTreeSet<String> = WORD_RE
        .find_iter(&rubric.to_lowercase())
        .map(|m| m.as_str().to_string())
        .collect();
    let lower = text.to_lowercase();
    let hits = rubric_words.iter().filter(|w| lower.contains(*w)).count();
    if chars >= 40 && hits >= 2 {
        (
            4,
            format!("a substantive reply that uses {hits} of the rubric's terms"),
        )
    } else {
        (3, "a plausible reply; nothing obviously wrong".into())
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
    pub(super) detail: String,
    pub(super) score: u8,
    pub(super) judged_by: JudgeMethod,
}

impl Graded {
    /// The offline heuristic's grade; `why_not_model` says why the model
    /// did not grade (nothing when there is no judge model).
    fn heuristic(reply: &str, rubric: &str, min: u8, why_not_model: &str) -> Self {
        let (score, why) = heuristic_score(reply, rubric);
        Graded {
            passed: score >= min,
            detail: format!(
                "{why_not_model}offline heuristic scored {score}/5 (needs {min}): {why}"
            ),
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
        return Graded::heuristic(&ctx.reply.content, rubric, min, "");
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
                detail: format!("judge scored {score}/5 (needs {min}): {reason}"),
                score,
                judged_by: JudgeMethod::Model,
            },
            None => Graded::heuristic(
                &ctx.reply.content,
                rubric,
                min,
                "the judge's answer had no usable score; ",
            ),
        },
        Err(e) => Graded::heuristic(
            &ctx.reply.content,
            rubric,
            min,
            &format!("the judge could not be reached ({e}); "),
        ),
    }
}
