//! `agenteval run` of the office pack (seed 002's 12 tasks over real
//! files) against `agenteval demo-target` on 127.0.0.1: the table per
//! difficulty group is printed and exported, in English and in Chinese.

use std::path::Path;

mod support;

use support::{DemoTarget, bin};

/// A project whose config runs the repository's office pack against the
/// demo target at `port`.
fn project(port: u16) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    let packs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let config = format!(
        "name: Office agent\n\
         target:\n  kind: openai\n  base_url: http://127.0.0.1:{port}/v1\n  model: agenteval-demo\n  concurrency: 4\n\
         scenarios:\n  paths: [\"{}\"]\n  tags: [workspace]\n\
         plan:\n  repeat: 1\n\
         gate:\n  min_pass_rate: 0.5\n\
         out_dir: out\n",
        packs.display()
    );
    std::fs::write(dir.path().join("agenteval.yaml"), config).expect("config");
    dir
}

/// `agenteval run` in `dir` with the language `lang`; its stdout and the
/// exported Markdown report.
fn run(dir: &Path, lang: &str) -> (String, String) {
    let out = bin()
        .current_dir(dir)
        .env("LANG", lang)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .args(["run", "--data-dir", "data"])
        .output()
        .expect("agenteval run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(dir.join("out/report.md")).expect("report.md");
    (stdout, report)
}

/// The row for `group` of the table under the heading `title` in
/// `text`: its cells.
fn row<'t>(text: &'t str, title: &str, group: &str) -> Vec<&'t str> {
    let at = text
        .find(title)
        .unwrap_or_else(|| panic!("no {title} in:\n{text}"));
    text[at..]
        .lines()
        .find(|l| l.starts_with(&format!("| {group} |")))
        .unwrap_or_else(|| panic!("no row for {group} in:\n{text}"))
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

const EN: &str = "Tasks per difficulty group";
const ZH: &str = "各难度组的任务指标";

#[test]
fn the_office_pack_prints_and_exports_the_table_per_group_in_both_languages() {
    let target = DemoTarget::start(&[]);
    let dir = project(target.port);
    let (stdout, report) = run(dir.path(), "en_US.UTF-8");
    for text in [&stdout, &report] {
        assert!(text.contains(EN), "{text}");
        for group in ["basic", "intermediate", "advanced"] {
            let cells = row(text, EN, group);
            assert_eq!(cells[1], "4", "four tasks a group: {cells:?}");
            assert!(cells[2].ends_with('%'), "a completion rate: {cells:?}");
            let steps: f64 = cells[4].parse().expect("mean steps");
            assert!(steps >= 1.0, "the agent acted in steps: {cells:?}");
        }
    }
    // The advanced group's contract summary misses a key field.
    let advanced = row(&report, EN, "advanced");
    assert_ne!(advanced[3], "100.0%", "{advanced:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/report.json")).unwrap())
            .unwrap();
    let groups: Vec<&str> = json["fixed"]["per_group_tasks"]
        .as_array()
        .expect("the JSON export has the table")
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["basic", "intermediate", "advanced"]);

    let zh = project(target.port);
    let (stdout, report) = run(zh.path(), "zh_CN.UTF-8");
    for text in [&stdout, &report] {
        assert!(text.contains(ZH), "{text}");
        assert!(text.contains("| 难度组 | 运行 | 任务完成率 |"), "{text}");
        for group in ["基础", "进阶", "高级"] {
            assert_eq!(row(text, ZH, group)[1], "4");
        }
    }
}
