//! Tests: the report's exploration findings without noise: one issue per
//! language-independent key with every phrasing, a judge finding once per
//! session, coverage names and the judge named; and a data folder of the
//! previous version read the same way.

use crate::support::{TestPlatform, platform, sqlite_platform};
use agenteval_engine::campaign::{Budget, Campaign, CreateCampaign, SeedSet};
use agenteval_engine::domain::ids::SessionId;
use agenteval_engine::exploration::{CloseSession, CreateSession, SeedRef, SendMessage, Trigger};
use agenteval_engine::findings::{IssueKind, issue_group_key};
use agenteval_engine::i18n::Lang;
use agenteval_engine::judge::{JudgeSampling, review_pending};
use agenteval_engine::target::TargetSettings;
use serde_json::json;

async fn campaign(tp: &TestPlatform) -> Campaign {
    let target = tp
        .platform
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target");
    let seeds: SeedSet = serde_json::from_value(json!({
        "personas": [{"id": "p-en", "name": "Ann", "language": "en"},
                     {"id": "p-zh", "name": "王女士", "language": "zh"}],
        "goals": [{"id": "g-mail", "title": "Send an email"}]
    }))
    .expect("seeds");
    tp.platform
        .create_campaign(CreateCampaign {
            name: "clean findings".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds),
            budget: Some(Budget {
                min_interval_minutes: Some(0.0),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("campaign")
}

/// A session of `persona` that sends `messages` and closes with `blockers`.
async fn session(
    tp: &TestPlatform,
    c: &Campaign,
    persona: &str,
    messages: &[&str],
    blockers: &[&str],
) -> SessionId {
    let s = tp
        .platform
        .create_session(CreateSession {
            campaign_id: c.id,
            // The seed's language, so that the virtual user speaks its own.
            persona: json!({"name": persona, "language": if persona.ends_with("zh") { "zh" } else { "en" }}),
            goal: json!({"title": "Send an email"}),
            seed_ref: Some(SeedRef {
                persona_id: persona.into(),
                goal_id: "g-mail".into(),
                variant: None,
            }),
            trigger: Some(Trigger::Auto),
            played_by: None,
            user_model: None,
        })
        .await
        .expect("session");
    for m in messages {
        tp.platform
            .send_message(
                s.id,
                SendMessage {
                    content: m.to_string(),
                },
            )
            .await
            .expect("message");
    }
    tp.platform
        .close_session(
            s.id,
            CloseSession {
                goal_achieved: false,
                blockers: Some(blockers.iter().map(|b| b.to_string()).collect()),
                misled: None,
                emotion: Some("frustrated".into()),
                notes: None,
                notes_said: None,
                end_reason: None,
            },
        )
        .await
        .expect("close");
    s.id
}

#[tokio::test]
async fn one_issue_in_two_languages_is_one_row_read_in_the_readers_language() {
    let tp = platform().await;
    let c = campaign(&tp).await;
    let en = session(
        &tp,
        &c,
        "p-en",
        &["hello"],
        &["target repeated the same reply", "The bot forgot my name"],
    )
    .await;
    let zh = session(
        &tp,
        &c,
        "p-zh",
        &["你好"],
        &["对方重复了同样的回复", "the bot forgot my NAME."],
    )
    .await;

    let f = tp
        .platform
        .exploration_findings(c.id)
        .await
        .expect("findings")
        .expect("the campaign has sessions");
    assert_eq!(f.issues.len(), 2, "two issues, each once: {:#?}", f.issues);
    let repeated = f
        .issues
        .iter()
        .find(|i| i.key == "builtin:target_repeated_reply")
        .expect("the built-in blocker is grouped by its key");
    assert_eq!(repeated.kind, IssueKind::Blocker);
    assert_eq!(repeated.count, 2, "reported by both sessions");
    assert_eq!(repeated.session_ids, vec![en, zh]);
    assert_eq!(
        repeated.texts,
        vec!["target repeated the same reply"],
        "one phrasing, the catalogue's, whichever language it was filed in"
    );
    assert_eq!(repeated.text, "target repeated the same reply");
    // Each session's record reads the built-in phrasing in the reader's
    // language, and free words as written.
    let record = tp
        .platform
        .get_session(en)
        .await
        .expect("session")
        .experience
        .expect("record");
    let blockers: Vec<String> = record.blockers.iter().map(|b| b.render(Lang::Zh)).collect();
    assert_eq!(
        blockers,
        vec!["对方重复了同样的回复", "The bot forgot my name"]
    );
    let forgot = f
        .issues
        .iter()
        .find(|i| i.key == issue_group_key("the bot forgot my name"))
        .expect("free text is grouped by its folded form");
    assert_eq!(forgot.count, 2);
    assert_eq!(
        forgot.texts,
        vec!["The bot forgot my name", "the bot forgot my NAME."]
    );

    // The report carries the same block.
    let report = tp.platform.campaign_report(c.id).await.expect("report");
    assert_eq!(report.exploration.as_ref(), Some(&f));

    assert_eq!(f.coverage.persona_names["p-zh"], "王女士");
    assert_eq!(f.coverage.goal_titles["g-mail"], "Send an email");
}

#[tokio::test]
async fn a_judge_finding_is_listed_once_per_session_and_the_judge_is_named() {
    let tp = platform().await;
    let c = campaign(&tp).await;
    // The demo agent answers the same words the same way: the heuristic
    // judge finds the repeated reply at turns 2 and 3, in the same words.
    let s = session(&tp, &c, "p-en", &["xyzzy", "xyzzy", "xyzzy"], &[]).await;
    let reviewed = review_pending(&tp.platform, None, JudgeSampling::default())
        .await
        .expect("review");
    assert_eq!(reviewed, 1);
    let stored = tp.platform.get_session(s).await.expect("session");
    let raw: Vec<(String, String)> = stored.judge_review.as_ref().expect("review")["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["dimension"].as_str().unwrap_or_default().to_string(),
                serde_json::from_value::<agenteval_engine::Text>(f["text"].clone())
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    let repeats = |list: &[(String, String)]| {
        list.iter()
            .filter(|(_, t)| t.starts_with("the target repeated its previous reply"))
            .count()
    };
    assert_eq!(
        repeats(&raw),
        2,
        "the review itself repeats the finding: {raw:?}"
    );

    let f = tp
        .platform
        .exploration_findings(c.id)
        .await
        .expect("findings")
        .expect("sessions");
    let listed: Vec<(String, String)> = f
        .findings
        .iter()
        .map(|x| (x.dimension.clone().unwrap_or_default(), x.text.to_string()))
        .collect();
    assert_eq!(repeats(&listed), 1, "listed once: {listed:?}");
    let mut distinct = listed.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), listed.len(), "no finding twice");
    let first = f
        .findings
        .iter()
        .find(|x| {
            x.text
                .to_string()
                .starts_with("the target repeated its previous reply")
        })
        .expect("the repeat");
    assert_eq!(first.turn, Some(2), "the first turn it happened is kept");
    assert_eq!(f.judge_models, vec!["heuristic"]);
}

#[tokio::test]
async fn a_data_folder_of_the_previous_version_groups_its_issues_by_key() {
    // An upgrade of SQLite's migration 0011; PostgreSQL's schema starts after it.
    let tp = sqlite_platform().await;
    let c = campaign(&tp).await;
    session(
        &tp,
        &c,
        "p-en",
        &["hello"],
        &["target repeated the same reply"],
    )
    .await;
    session(&tp, &c, "p-zh", &["你好"], &["对方重复了同样的回复"]).await;
    let now = tp
        .platform
        .exploration_findings(c.id)
        .await
        .expect("findings")
        .expect("sessions");

    // The issue tally as the previous version kept it: keyed by folded
    // text, one row per language, without phrasings.
    tp.platform
        .fixtures()
        .issue_tally_before_0011(
            c.id,
            &[
                (
                    "blocker",
                    "target repeated the same reply",
                    "target repeated the same reply",
                    1,
                ),
                ("blocker", "对方重复了同样的回复", "对方重复了同样的回复", 1),
            ],
        )
        .await
        .expect("downgrade");
    let reopened = tp.reopen().await;
    let then = reopened
        .exploration_findings(c.id)
        .await
        .expect("findings")
        .expect("sessions");
    assert_eq!(then, now, "the upgrade fills the tally again by key");
    assert_eq!(then.issues.len(), 1);
    assert_eq!(then.issues[0].count, 2);
    assert_eq!(then.issues[0].texts.len(), 1, "{:?}", then.issues[0].texts);
}
