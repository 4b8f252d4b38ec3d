//! What the offline judge reads in a session's steps (the tool calls the
//! engine answered before each reply): a tool the target made up, a failed
//! call it repeated as it was, a turn that reached its step limit, and a
//! reply that claims an action (sent, exported, saved) no successful call
//! did. Each is a `trajectory` finding naming its step.

use super::heuristic::quote;
use super::*;
use crate::domain::steps::Step;
use crate::i18n::Msg;
use crate::msg;
use regex::Regex;

/// What the steps showed, for the scores.
#[derive(Default)]
pub(super) struct TrajectoryTally {
    /// Replies claiming an action no successful step did.
    pub claims: u32,
    /// Unknown tools called, failed calls repeated, step limits reached.
    pub missteps: u32,
    /// The first such claim, quoted.
    pub claim_evidence: Option<String>,
}

/// A kind of action a reply may claim, and the tools that do it.
struct Action {
    /// Chinese phrases that claim it done.
    zh: &'static [&'static str],
    /// English words that claim it done.
    en: Regex,
    /// Names of tools that do it.
    tools: Regex,
    /// Whether the claim counts only when the sentence names a file
    /// ("已生成以下摘要" claims nothing of a file).
    about_files: bool,
}

static ACTIONS: LazyLock<Vec<Action>> = LazyLock::new(|| {
    let re = |s: &str| Regex::new(s).expect("static regex");
    vec![
        Action {
            zh: &[
                "已发送",
                "已经发送",
                "发送成功",
                "已发给",
                "已发出",
                "已转发",
                "已通知",
            ],
            en: re(r"(?i)\b(sent|emailed|forwarded|notified)\b"),
            tools: re(r"(?i)send|mail|notify|message|forward|share"),
            about_files: false,
        },
        Action {
            zh: &["已导出", "已经导出", "导出成功"],
            en: re(r"(?i)\bexported\b"),
            tools: re(r"(?i)export|convert"),
            about_files: false,
        },
        Action {
            zh: &[
                "已保存",
                "已经保存",
                "保存成功",
                "已创建",
                "创建成功",
                "已生成",
                "已写入",
                "已更新",
                "已追加",
            ],
            en: re(r"(?i)\b(saved|created|written|wrote|generated|updated|appended)\b"),
            tools: re(r"(?i)create|append|write|save|update|export|visuali[sz]e|chart|edit"),
            about_files: true,
        },
    ]
});

static FILE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)文件|文档|报告|表格|图表|纪要|\b(file|document|report|chart|sheet|spreadsheet)s?\b|\.(md|txt|docx|pdf|xlsx|csv|svg)\b",
    )
    .expect("static regex")
});

/// Words that make an English claim a denial ("could not be sent").
static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(not|never|unable|cannot|couldn't|wasn't|weren't|hasn't|haven't|failed|no)\b|n't\b",
    )
    .expect("static regex")
});

/// Where a sentence stops: Chinese stops, and English ones before a space
/// (a file name's dot is no stop).
static STOP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[。！？；\n]|[.!?;](\s|$)").expect("static regex"));

/// The sentences of a reply.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    STOP.split(text).filter(|s| !s.trim().is_empty())
}

/// The phrase of `sentence` claiming `action` done, if it claims it.
fn claim_in<'s>(action: &Action, sentence: &'s str) -> Option<&'s str> {
    if action.about_files && !FILE_WORDS.is_match(sentence) {
        return None;
    }
    for phrase in action.zh {
        if let Some(at) = sentence.find(phrase) {
            let before: String = sentence[..at].chars().rev().take(3).collect();
            if !before.contains(['没', '未', '不', '无']) {
                return Some(&sentence[at..at + phrase.len()]);
            }
        }
    }
    let found = action.en.find(sentence)?;
    let before = &sentence[..found.start()];
    let clause = before.rsplit(',').next().unwrap_or(before);
    (!NEGATION.is_match(clause)).then(|| found.as_str())
}

/// The trajectory findings of a conversation, each naming its step.
/// `offered` says whether the target was given tools (a reply's claim of
/// an action is read only then: a target that acts through no tool of the
/// engine's is not seen acting).
pub(super) fn trajectory_findings(
    all: &[Round<'_>],
    offered: bool,
    max_steps: Option<u32>,
    findings: &mut Vec<JudgeFinding>,
) -> TrajectoryTally {
    let mut tally = TrajectoryTally::default();
    for r in all {
        missteps(r, &mut tally, findings);
        // Still calling tools at the limit: the engine stopped the turn,
        // and the reply has no words (its calls went unanswered).
        if let (Some(max), Some(last)) = (max_steps, r.steps.last())
            && last.round >= max
            && r.target.is_none_or(|t| t.trim().is_empty())
        {
            tally.missteps += 1;
            findings.push(trajectory(
                Grade::Poor,
                msg!("judge-step-limit", max = max),
                r.number,
                Some(r.steps.len() - 1),
            ));
        }
    }
    if offered {
        for (i, r) in all.iter().enumerate() {
            claims(&all[..=i], r, &mut tally, findings);
        }
    }
    tally
}

fn trajectory(grade: Grade, text: Msg, turn: u32, step: Option<usize>) -> JudgeFinding {
    JudgeFinding {
        grade,
        severity: None,
        dimension: "trajectory".into(),
        text: text.into(),
        turn: Some(turn),
        step: step.map(|i| i as u32 + 1),
    }
}

/// Unknown tools, and a failed call made again as it was (once a round).
fn missteps(r: &Round<'_>, tally: &mut TrajectoryTally, findings: &mut Vec<JudgeFinding>) {
    for (i, step) in r.steps.iter().enumerate() {
        if step
            .answer
            .error()
            .is_some_and(|e| e.code == "UNKNOWN_TOOL")
        {
            tally.missteps += 1;
            findings.push(trajectory(
                Grade::Poor,
                msg!("judge-unknown-tool", tool = step.call.name.as_str()),
                r.number,
                Some(i),
            ));
        }
    }
    let repeated = r.steps.iter().enumerate().find_map(|(j, later)| {
        r.steps[..j]
            .iter()
            .enumerate()
            .find(|(_, s)| s.same_call(later) && s.answer.error().is_some())
            .map(|(i, s)| (i, j, s))
    });
    if let Some((i, j, failed)) = repeated {
        tally.missteps += 1;
        let code = failed.answer.error().map_or("", |e| e.code.as_str());
        findings.push(trajectory(
            Grade::Poor,
            msg!(
                "judge-repeated-failed-call",
                tool = failed.call.name.as_str(),
                code = code,
                failed = i + 1,
                step = j + 1
            ),
            r.number,
            Some(j),
        ));
    }
}

/// An action a reply claims that no successful step did.
pub(crate) struct Unfulfilled<'a> {
    /// The reply's words that claim it ("已发送", "sent").
    pub claim: &'a str,
    /// The latest failed step of a tool that does it: its round (1-based),
    /// its index in the round (0-based) and the step.
    pub failed: Option<(u32, usize, &'a Step)>,
}

/// Each action `reply` claims that no successful step of `rounds` did
/// (the rounds so far, the reply's own included: each its number and its
/// steps).
pub(crate) fn unfulfilled_claims<'a>(
    reply: &'a str,
    rounds: &[(u32, &'a [Step])],
) -> Vec<Unfulfilled<'a>> {
    let mut out = Vec::new();
    for action in ACTIONS.iter() {
        let Some(claim) = sentences(reply).find_map(|s| claim_in(action, s)) else {
            continue;
        };
        let doing = |s: &&Step| action.tools.is_match(&s.call.name);
        let done = rounds
            .iter()
            .flat_map(|(_, steps)| steps.iter())
            .filter(doing)
            .any(|s| s.answer.error().is_none());
        if done {
            continue;
        }
        let failed = rounds.iter().rev().find_map(|(number, steps)| {
            steps
                .iter()
                .enumerate()
                .rev()
                .find(|(_, s)| doing(s) && s.answer.error().is_some())
                .map(|(i, s)| (*number, i, s))
        });
        out.push(Unfulfilled { claim, failed });
    }
    out
}

/// Each action the reply of `r` claims that no successful step so far did
/// (`upto`: the rounds up to and including `r`), a finding naming the
/// failed step that should have done it when there is one.
fn claims(
    upto: &[Round<'_>],
    r: &Round<'_>,
    tally: &mut TrajectoryTally,
    findings: &mut Vec<JudgeFinding>,
) {
    let Some(reply) = r.target else { return };
    let rounds: Vec<(u32, &[Step])> = upto.iter().map(|r| (r.number, r.steps)).collect();
    for Unfulfilled { claim, failed } in unfulfilled_claims(reply, &rounds) {
        tally.claims += 1;
        tally.claim_evidence.get_or_insert_with(|| quote(reply));
        findings.push(match failed {
            Some((turn, i, step)) => trajectory(
                Grade::Poor,
                msg!(
                    "judge-claimed-failed",
                    claim = claim,
                    tool = step.call.name.as_str(),
                    code = step.answer.error().map_or("", |e| e.code.as_str()),
                    reply = quote(reply)
                ),
                turn,
                Some(i),
            ),
            None => trajectory(
                Grade::Poor,
                msg!("judge-claimed-no-step", claim = claim, reply = quote(reply)),
                r.number,
                None,
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::steps::{StepAnswer, ToolError};
    use crate::exploration::PlayedBy;

    fn step(round: u32, name: &str, args: Value, answer: StepAnswer) -> Step {
        Step {
            round,
            call: crate::channel::ToolCall {
                id: format!("call_{name}_{round}"),
                name: name.into(),
                arguments: args,
            },
            answer,
            latency_ms: 3,
            tokens_in: None,
            tokens_out: None,
            document: None,
        }
    }

    fn failed(code: &str) -> StepAnswer {
        StepAnswer::Error(ToolError {
            code: code.into(),
            message: "it failed".into(),
            suggestion: String::new(),
        })
    }

    fn said(role: &str, content: &str, steps: Vec<Step>) -> SessionMessage {
        SessionMessage {
            role: role.into(),
            content: content.into(),
            latency_ms: Some(5),
            steps,
        }
    }

    fn session(messages: Vec<SessionMessage>, tools: &[&str]) -> SessionForReview {
        SessionForReview {
            persona: json!({"name": "王芳", "language": "zh"}),
            goal: json!({"title": "汇总销售额并导出报告"}),
            experience: None,
            end_reason: Some("goal_achieved".into()),
            played_by: PlayedBy::Builtin,
            messages,
            tools: tools.iter().map(|t| t.to_string()).collect(),
            max_steps: Some(4),
        }
    }

    #[test]
    fn the_heuristic_judge_reads_the_steps() {
        let query = json!({"file_path": "data/sales.xlsx", "query_range": "A1:Z9"});
        let review = heuristic_review(&session(
            vec![
                said("user", "华东的销售额是多少？", vec![]),
                said(
                    "target",
                    "华东销售额为 45,230 元。",
                    vec![step(
                        1,
                        "DATA_QUERY",
                        json!({"file_path": "data/sales.xlsx"}),
                        StepAnswer::Result(json!({"sample_data": [{"销售额": 45230}]})),
                    )],
                ),
                said("user", "导出成 PDF 发给我", vec![]),
                said(
                    "target",
                    "报告已导出为 PDF。",
                    vec![
                        step(1, "DATA_QUERY", query.clone(), failed("INVALID_RANGE")),
                        step(2, "DATA_QUERY", query, failed("INVALID_RANGE")),
                        step(
                            3,
                            "DOC_EXPORT",
                            json!({"doc_id": "d1"}),
                            failed("EXPORT_FAILED"),
                        ),
                        step(4, "SEND_MAIL", json!({}), failed("UNKNOWN_TOOL")),
                    ],
                ),
            ],
            &["DATA_QUERY", "DOC_EXPORT"],
        ));
        let about = |key: &str| {
            review
                .findings
                .iter()
                .find(|f| f.text.to_key().contains(key))
                .unwrap_or_else(|| panic!("a finding {key}: {:#?}", review.findings))
        };
        // A figure a tool returned is no invention.
        assert!(
            !review
                .findings
                .iter()
                .any(|f| f.text.to_key().contains("invented")),
            "{:#?}",
            review.findings
        );
        let claim = about("judge-claimed-failed");
        assert_eq!((claim.turn, claim.step), (Some(2), Some(3)));
        assert_eq!(claim.dimension, "trajectory");
        assert!(claim.text.to_key().contains("EXPORT_FAILED"));
        let repeated = about("judge-repeated-failed-call");
        assert_eq!((repeated.turn, repeated.step), (Some(2), Some(2)));
        let unknown = about("judge-unknown-tool");
        assert_eq!((unknown.turn, unknown.step), (Some(2), Some(4)));
        let d = review.dimensions.expect("scored");
        assert!(d.hallucination.score <= 3, "a claim without its action");
        assert!(d.professionalism.score <= 3, "two missteps");
        assert!(
            !review.findings.iter().any(|f| f.grade == Grade::Good
                && (f.dimension == "trajectory" || f.dimension == "hallucination")),
            "nothing good said of the steps or the figures"
        );
    }

    #[test]
    fn a_claim_is_read_only_of_a_target_offered_tools_and_a_figure_no_tool_returned_is_named() {
        let talk = |tools: &[&str]| {
            heuristic_review(&session(
                vec![
                    said("user", "把纪要发给团队", vec![]),
                    said("target", "纪要已发送给团队，共 37 人。", vec![]),
                ],
                tools,
            ))
        };
        let keys = |r: &JudgeReview| -> Vec<String> {
            r.findings.iter().map(|f| f.text.to_key()).collect()
        };
        let plain = keys(&talk(&[]));
        assert!(!plain.iter().any(|k| k.contains("claimed")), "{plain:?}");
        assert!(
            plain
                .iter()
                .any(|k| k.contains("\"judge-invented-figure\""))
        );
        let acting = keys(&talk(&["SEND_MAIL"]));
        assert!(
            acting.iter().any(|k| k.contains("judge-claimed-no-step")),
            "{acting:?}"
        );
        assert!(
            acting
                .iter()
                .any(|k| k.contains("judge-invented-figure-tools"))
        );
    }

    #[test]
    fn claims_are_read_in_both_languages_and_denials_are_not_claims() {
        let [send, export, save] = &ACTIONS[..] else {
            panic!("three actions")
        };
        assert_eq!(claim_in(send, "报告已发送给张经理"), Some("已发送"));
        assert_eq!(claim_in(send, "报告未能发送"), None);
        assert_eq!(
            claim_in(send, "I have sent the report to Ann"),
            Some("sent")
        );
        assert_eq!(claim_in(send, "The report could not be sent"), None);
        assert_eq!(claim_in(export, "已导出为 PDF"), Some("已导出"));
        assert_eq!(claim_in(export, "没有导出成功"), None);
        assert_eq!(claim_in(save, "已生成会议纪要文件"), Some("已生成"));
        assert_eq!(
            claim_in(save, "已生成以下摘要"),
            None,
            "a claim to have made something that is no file"
        );
        assert_eq!(
            claim_in(save, "I created output/summary.md"),
            Some("created")
        );
        assert_eq!(claim_in(save, "I haven't created the file yet"), None);
    }

    #[test]
    fn a_turn_stopped_at_its_step_limit_is_named_at_its_last_step() {
        let list = |round| {
            step(
                round,
                "FILE_LIST",
                json!({"directory": "."}),
                StepAnswer::Result(json!({"files": []})),
            )
        };
        let review = heuristic_review(&session(
            vec![
                said("user", "找一下文件", vec![]),
                said("target", "", (1..=4).map(list).collect()),
                said("user", "再找一次", vec![]),
                said("target", "没有找到文件。", (1..=4).map(list).collect()),
            ],
            &["FILE_LIST"],
        ));
        let limits: Vec<(Option<u32>, Option<u32>)> = review
            .findings
            .iter()
            .filter(|f| f.text.to_key().contains("judge-step-limit"))
            .map(|f| (f.turn, f.step))
            .collect();
        assert_eq!(
            limits,
            [(Some(1), Some(4))],
            "four rounds then words is no limit reached"
        );
    }

    #[test]
    fn the_judge_model_reads_each_rounds_steps_and_may_cite_one() {
        let long = "x".repeat(900);
        let s = session(
            vec![
                said("user", "把周报发给张经理", vec![]),
                said(
                    "target",
                    "报告已发送。",
                    vec![
                        step(
                            1,
                            "LOOKUP_CONTACT",
                            json!({"name": long}),
                            StepAnswer::Result(json!({"email": "z@example.com"})),
                        ),
                        step(
                            2,
                            "SEND_MAIL",
                            json!({"to": "z@example.com"}),
                            failed("MAIL_SERVER_DOWN"),
                        ),
                    ],
                ),
            ],
            &["LOOKUP_CONTACT", "SEND_MAIL"],
        );
        let (messages, _) = judge_prompt(&s, JudgeSampling::default());
        let prompt = &messages[1].content;
        assert!(
            prompt.contains("[round 1 step 2] CALL SEND_MAIL({\"to\":\"z@example.com\"}) -> ERROR MAIL_SERVER_DOWN: it failed"),
            "{prompt}"
        );
        assert!(
            !prompt.contains(&"x".repeat(300)),
            "a step's arguments are cut short"
        );
        let schema = review_schema(&s);
        let (_, findings, _) = parse_judge_output(
            r#"{"attitude": {"score": 4, "evidence": ""}, "professionalism": {"score": 3, "evidence": ""},
                "hallucination": {"score": 2, "evidence": ""},
                "findings": [{"grade": "poor", "dimension": "trajectory", "text": "说已发送，但发送失败", "turn": 1, "step": 2},
                             {"grade": "fair", "dimension": "attitude", "text": "语气生硬", "turn": 0, "step": 3}],
                "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false}}"#,
            schema,
        )
        .expect("an answer of the schema");
        assert_eq!((findings[0].turn, findings[0].step), (Some(1), Some(2)));
        assert_eq!(findings[0].dimension, "trajectory");
        assert_eq!(
            (findings[1].turn, findings[1].step),
            (None, None),
            "a step without its round names nothing"
        );
    }
}
