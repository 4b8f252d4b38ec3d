//! `agenteval export --lang`: the Markdown report of the demo reads in the
//! asked language. Outside quoted text (the conversation, the users' own
//! words), code spans, links and the data's own names (scenario titles,
//! personas, goals, tags), a Chinese report has no English word and an
//! English one no Chinese character.

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agenteval"))
}

fn export(dir: &std::path::Path, id: &str, format: &str, lang: &str) -> String {
    let out = bin()
        .args([
            "export",
            "--campaign",
            id,
            "--format",
            format,
            "--lang",
            lang,
            "--data-dir",
        ])
        .arg(dir)
        .output()
        .expect("run agenteval export");
    assert!(
        out.status.success(),
        "export {format} --lang {lang}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The names the data brings, shown as written in every language.
fn data_words(report: &Value) -> Vec<String> {
    let mut words = BTreeSet::new();
    let mut add = |v: &Value| {
        if let Some(s) = v.as_str()
            && !s.trim().is_empty()
        {
            words.insert(s.to_string());
        }
    };
    add(&report["campaign"]["name"]);
    add(&report["target_name"]);
    add(&report["target_model"]);
    for s in report["fixed"]["per_scenario"]
        .as_array()
        .into_iter()
        .flatten()
    {
        add(&s["title"]);
        add(&s["scenario_id"]);
        add(&s["pack"]);
    }
    for key in ["per_group", "per_tag"] {
        for g in report["fixed"][key].as_array().into_iter().flatten() {
            add(&g["name"]);
        }
    }
    for p in report["campaign"]["seed_set"]["personas"]
        .as_array()
        .into_iter()
        .flatten()
    {
        add(&p["name"]);
        add(&p["id"]);
    }
    for g in report["campaign"]["seed_set"]["goals"]
        .as_array()
        .into_iter()
        .flatten()
    {
        add(&g["title"]);
        add(&g["id"]);
    }
    // Longest first, so that a title goes before a word inside it.
    let mut words: Vec<String> = words.into_iter().collect();
    words.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    words
}

/// What is left of the document once the conversation, quotations, code,
/// links, ids, figures and the data's own names are taken out.
fn own_words(md: &str, data: &[String]) -> String {
    // Escaped Markdown back to the text it shows.
    let unescaped = regex::Regex::new(r"\\(.)")
        .unwrap()
        .replace_all(md, "$1")
        .into_owned();
    // The transcript's lines are the conversation itself.
    let turn = regex::Regex::new(r"^\d+\. \*\*").unwrap();
    let mut text: String = unescaped
        .lines()
        .filter(|l| !turn.is_match(l))
        .collect::<Vec<_>>()
        .join("\n");
    for w in data {
        // Whole words: the tag "en" is not the "en" of "token".
        let edge = |c: Option<char>| {
            if c.is_some_and(|c| c.is_alphanumeric()) {
                r"\b"
            } else {
                ""
            }
        };
        let pattern = format!(
            "{}{}{}",
            edge(w.chars().next()),
            regex::escape(w),
            edge(w.chars().last())
        );
        text = regex::Regex::new(&pattern)
            .unwrap()
            .replace_all(&text, " ")
            .into_owned();
    }
    let quoted = regex::Regex::new(
        r#"“[^”]*”|"[^"\n]*"|`[^`]*`|\]\([^)]*\)|\b[0-9a-f]{6,}(-[0-9a-f]{4,})*\b"#,
    )
    .unwrap();
    quoted.replace_all(&text, " ").into_owned()
}

#[test]
fn the_markdown_export_reads_in_the_asked_language() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["demo", "--seconds", "2", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("run agenteval demo");
    assert!(
        out.status.success(),
        "demo: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let id = stdout
        .lines()
        .filter_map(|l| {
            // "campaign:" in English, "活动：" in Chinese: the id ends the line.
            l.split_whitespace()
                .last()
                .filter(|w| uuid::Uuid::parse_str(w).is_ok())
                .map(str::to_string)
        })
        .next()
        .expect("the demo names its campaign");
    let report: Value = serde_json::from_str(&export(dir.path(), &id, "json", "zh")).unwrap();
    let data = data_words(&report);

    let zh = export(dir.path(), &id, "md", "zh");
    assert!(
        zh.starts_with("# 活动报告："),
        "a Chinese title: {}",
        &zh[..80.min(zh.len())]
    );
    for heading in [
        "## 固定场景",
        "## 附录：智能分析",
        "## 附录：探索发现",
        "### 发现的问题",
    ] {
        assert!(zh.contains(heading), "{heading} in the Chinese report");
    }
    // Words the Chinese report may hold: units, formats, figures' names.
    let same_in_both: BTreeSet<&str> = [
        "ms",
        "p50",
        "p95",
        "token",
        "Kappa",
        "kappa",
        "Cohen",
        "bootstrap",
        "UTC",
        "JSON",
        "CSV",
        "id",
        "pass",
        "k",
    ]
    .into_iter()
    .collect();
    let english: Vec<String> = regex::Regex::new(r"[A-Za-z]{2,}")
        .unwrap()
        .find_iter(&own_words(&zh, &data))
        .map(|m| m.as_str().to_string())
        .filter(|w| !same_in_both.contains(w.as_str()))
        .collect();
    assert!(
        english.is_empty(),
        "the Chinese report has English words of its own: {english:?}"
    );
    // The built-in virtual user's records are the product's sentences, not
    // quoted words: Chinese in a Chinese report, for its English personas
    // too (the demo's users are all built-in).
    let records: Vec<&str> = zh
        .lines()
        .filter(|l| l.starts_with("- 体验：") || l.starts_with("- 备注："))
        .collect();
    assert!(
        records.len() >= 2,
        "the sessions' records are in the report"
    );
    let unquoted = records.join("\n").replace(['“', '”', '"'], " ");
    let english: Vec<String> = regex::Regex::new(r"[A-Za-z]{2,}")
        .unwrap()
        .find_iter(&own_words(&unquoted, &data))
        .map(|m| m.as_str().to_string())
        .filter(|w| !same_in_both.contains(w.as_str()))
        .collect();
    assert!(
        english.is_empty(),
        "the built-in virtual user's records have English words: {english:?}\n{records:#?}"
    );

    let en = export(dir.path(), &id, "md", "en");
    assert!(en.starts_with("# Campaign report: "));
    let han: Vec<String> = regex::Regex::new(r"\p{Han}+")
        .unwrap()
        .find_iter(&own_words(&en, &data))
        .map(|m| m.as_str().to_string())
        .collect();
    assert!(
        han.is_empty(),
        "the English report has Chinese words of its own: {han:?}"
    );

    // The JSON export carries every message's text in the asked language.
    let verdicts: Vec<&str> = report["fixed"]["per_scenario"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["failing_checks"].as_array().into_iter().flatten())
        .filter_map(|c| c["detail"]["text"].as_str())
        .collect();
    assert!(!verdicts.is_empty(), "the demo fails some checks");
    assert!(
        verdicts
            .iter()
            .all(|t| t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))),
        "each failed check's detail in Chinese: {verdicts:?}"
    );
}
