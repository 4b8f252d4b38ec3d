//! The catalogue is complete: every message in both languages with the
//! same variables, every key the code uses present, every message
//! rendered with sample arguments in both languages without an error, and
//! no English left in a Chinese message (nor Chinese in an English one)
//! outside its arguments.

use agenteval_domain::i18n::{self, Arg, Lang, NAME_FAMILIES};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn catalogue(lang: Lang) -> BTreeMap<String, Vec<String>> {
    i18n::messages(lang).unwrap_or_else(|e| panic!("the {lang} catalogue parses: {e}"))
}

#[test]
fn both_languages_have_every_message_with_the_same_variables() {
    let en = catalogue(Lang::En);
    let zh = catalogue(Lang::Zh);
    let only_en: Vec<_> = en.keys().filter(|k| !zh.contains_key(*k)).collect();
    let only_zh: Vec<_> = zh.keys().filter(|k| !en.contains_key(*k)).collect();
    assert!(only_en.is_empty(), "messages with no Chinese: {only_en:?}");
    assert!(only_zh.is_empty(), "messages with no English: {only_zh:?}");
    for (key, vars) in &en {
        assert_eq!(
            vars, &zh[key],
            "{key} uses the same variables in both languages"
        );
    }
    assert!(en.len() > 50, "the catalogue has the engine's sentences");
}

/// A sample value for a variable: a count for the plural selectors, a
/// word otherwise (both render in any placeable).
fn sample(var: &str) -> Arg {
    Arg::Int(var.len() as i64 % 3 + 1)
}

#[test]
fn every_message_renders_in_both_languages_in_its_own_script() {
    let word = regex::Regex::new(r"[A-Za-z]{2,}").unwrap();
    let han = regex::Regex::new(r"\p{Han}").unwrap();
    // Code spans are the same in both languages.
    let code = regex::Regex::new(r"`[^`]*`|\]\(#[^)]*\)").unwrap();
    // Names that are the same in both languages: formats, products,
    // units, the API's own words.
    let same_in_both: BTreeSet<&str> = [
        "JSON",
        "JSONPath",
        "CSV",
        "Markdown",
        "JUnit",
        "API",
        "URL",
        "HTTP",
        "ms",
        "MB",
        "id",
        "ID",
        "pass",
        "k",
        "AgentEval",
        "kappa",
        "Wilson",
        "OpenAI",
        "YAML",
        "UTF",
        "SQLite",
        "PostgreSQL",
        "SQL",
        "UI",
        "p50",
        "p95",
        "LLM",
        "agenteval",
        "Key",
        "X",
        "API",
        "Fluent",
        "cohen",
        "bootstrap",
        "CI",
        "token",
        "KiB",
        "MiB",
        "Kappa",
        "Schema",
        "Cohen",
    ]
    .into_iter()
    .collect();
    for lang in Lang::ALL {
        for (key, vars) in catalogue(lang) {
            let args: BTreeMap<String, Arg> = vars.iter().map(|v| (v.clone(), sample(v))).collect();
            let text = i18n::render_checked(lang, &key, &args)
                .unwrap_or_else(|e| panic!("{key} renders in {lang}: {e}"));
            assert!(!text.trim().is_empty(), "{key} says something in {lang}");
            let text = code.replace_all(&text, "").into_owned();
            match lang {
                Lang::Zh => {
                    let english: Vec<&str> = word
                        .find_iter(&text)
                        .map(|m| m.as_str())
                        .filter(|w| !same_in_both.contains(w))
                        .collect();
                    assert!(
                        english.is_empty(),
                        "{key} in Chinese has English words {english:?}: {text}"
                    );
                }
                Lang::En => assert!(!han.is_match(&text), "{key} in English has Chinese: {text}"),
            }
        }
    }
}

#[test]
fn every_name_family_value_has_a_message() {
    for (family, values) in NAME_FAMILIES {
        for value in *values {
            for lang in Lang::ALL {
                assert!(
                    i18n::has_key(lang, &format!("{family}-{value}")),
                    "{family}-{value} in {lang}"
                );
            }
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The argument names of a `msg!(...)` call whose text starts at `rest`
/// (just after the key's closing quote): the `name =` at depth 0.
fn macro_arg_names(rest: &str) -> BTreeSet<String> {
    let mut depth = 0i32;
    let mut end = rest.len();
    let mut in_str = false;
    let mut prev = ' ';
    for (i, c) in rest.char_indices() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '(' | '[' | '{' if !in_str => depth += 1,
            ')' | ']' | '}' if !in_str => {
                if depth == 0 {
                    end = i;
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
        prev = c;
    }
    let body = &rest[..end];
    let name = regex::Regex::new(r"^\s*,?\s*([a-z_][a-z0-9_]*)\s*=[^=]").unwrap();
    // Split on the commas at depth 0.
    let mut parts = vec![];
    let (mut depth, mut start, mut in_str, mut prev) = (0i32, 0usize, false, ' ');
    for (i, c) in body.char_indices() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '(' | '[' | '{' | '<' if !in_str => depth += 1,
            ')' | ']' | '}' | '>' if !in_str => depth -= 1,
            ',' if !in_str && depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    parts.push(&body[start..]);
    parts
        .iter()
        .filter_map(|p| name.captures(&format!("{p} ")).map(|c| c[1].to_string()))
        .collect()
}

#[test]
fn every_key_the_code_uses_is_in_the_catalogue_with_its_variables() {
    let root = workspace();
    let mut files = vec![];
    for dir in ["crates", "src-tauri/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let call = regex::Regex::new(r#"msg!\(\s*"([A-Za-z0-9_-]+)""#).unwrap();
    let en = catalogue(Lang::En);
    let mut used = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for c in call.captures_iter(&text) {
            let key = &c[1];
            if file.ends_with("i18n.rs") || file.ends_with("catalogue.rs") {
                continue;
            }
            used += 1;
            let vars = en
                .get(key)
                .unwrap_or_else(|| panic!("{}: {key} is not in the catalogue", file.display()));
            let given = macro_arg_names(&text[c.get(0).unwrap().end()..]);
            for v in vars {
                assert!(
                    given.contains(v),
                    "{}: {key} uses ${v}, which the call does not give (it gives {given:?})",
                    file.display()
                );
            }
        }
    }
    assert!(used > 0, "the engine writes its sentences as messages");
}

#[test]
fn every_issue_of_the_built_in_virtual_user_and_every_slot_label_has_a_message() {
    let (issues, slots) = agenteval_domain::issue_keys::catalogue_keys();
    for lang in Lang::ALL {
        for key in &issues {
            assert!(
                i18n::has_key(lang, &format!("issue-{key}")),
                "issue-{key} in {lang}"
            );
        }
        for slot in &slots {
            assert!(
                i18n::has_key(lang, &format!("slot-{slot}")),
                "slot-{slot} in {lang}"
            );
        }
        assert!(i18n::has_key(lang, "slot-unnamed"));
    }
    let gave_up = agenteval_domain::issue_keys::issue_message([
        "gave up after 4 unhelpful replies",
        "连续2次没有得到有用的回复，放弃了",
        "gave up after 3 unhelpful replies",
    ])
    .expect("a catalogue issue");
    assert_eq!(
        gave_up.render(Lang::En),
        "gave up after 2–4 unhelpful replies"
    );
    assert_eq!(
        gave_up.render(Lang::Zh),
        "连续 2–4 次没有得到有用的回复，放弃了"
    );
    let slot =
        agenteval_domain::issue_keys::issue_message(["said it was done before I gave the q1"])
            .expect("a catalogue issue");
    assert!(
        !slot.render(Lang::En).contains("q1") && !slot.render(Lang::Zh).contains("q1"),
        "a slot key never reaches a sentence: {}",
        slot.render(Lang::En)
    );
    assert_eq!(
        agenteval_domain::issue_keys::issue_message(["asked for the order twice"])
            .map(|m| m.render(Lang::Zh)),
        Some("对方重复询问订单号".to_string())
    );
    assert!(agenteval_domain::issue_keys::issue_message(["The bot forgot my name"]).is_none());
}
