//! The `agenteval` binary, run as a user runs it.

use agenteval_engine::Platform;
use agenteval_engine::clock::ManualClock;
use agenteval_engine::role_models::RoleModels;
use agenteval_engine::store::inspect::Inspect;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agenteval"))
}

fn repo_scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

#[test]
fn demo_runs_offline_and_writes_a_report_with_a_meaningful_pass_rate() {
    // From a folder with no scenarios in it: the shipped packs are in the
    // binary.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    let output = bin()
        .current_dir(dir.path())
        .args(["demo", "--seconds", "2", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .env_remove("AGENTEVAL_API_KEY")
        .output()
        .expect("run agenteval demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "demo failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("loaded from the shipped packs"),
        "the shipped packs are loaded: {stdout}"
    );
    assert!(
        stdout.contains("report:"),
        "it says where the report is: {stdout}"
    );
    assert!(
        dir.path().join(agenteval_engine::store::DB_FILE).is_file(),
        "the database is in the data folder"
    );
    let md = std::fs::read_to_string(&out).expect("report written");
    assert!(
        md.contains("Nothing left this machine"),
        "the demo contacts no host off this machine"
    );
    let rate_line = md
        .lines()
        .find(|l| l.starts_with("**Pass rate:"))
        .expect("pass rate line");
    let rate: f64 = rate_line
        .trim_start_matches("**Pass rate: ")
        .split('%')
        .next()
        .and_then(|s| s.parse().ok())
        .expect("a percentage");
    assert!(
        rate > 0.0 && rate < 100.0,
        "the demo agent's strengths pass and its flaws fail: {rate}%"
    );
    assert!(
        md.contains("no unverified figures"),
        "the invented trend number is caught"
    );
    assert!(
        stdout.contains("exploration:"),
        "the demo explores too: {stdout}"
    );
    let analysis = md.find("## Appendix: Analysis").expect("analysis appendix");
    let findings = md
        .find("## Appendix: Exploration findings")
        .expect("exploration findings");
    assert!(analysis < findings, "appendices come in order");
    assert!(
        md.contains("| Goal achievement |"),
        "an achievement rate is reported"
    );
    assert!(
        md.contains("### Judge findings"),
        "judge reviews are reported"
    );
    assert!(
        md.contains("(#session-"),
        "findings link to their transcripts"
    );
}

#[test]
fn export_regenerates_from_stored_data_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let status = bin()
        .args(["demo", "--seconds", "1", "--data-dir"])
        .arg(dir.path())
        .arg("--scenarios")
        .arg(repo_scenarios())
        .output()
        .unwrap();
    assert!(status.status.success());
    let md = std::fs::read_to_string(dir.path().join("demo-report.md")).unwrap();
    let id = md
        .lines()
        .find(|l| l.starts_with("| Campaign id |"))
        .and_then(|l| l.split('`').nth(1))
        .expect("campaign id in the report")
        .to_string();
    for (format, probe) in [
        ("md", "# Campaign report"),
        ("json", "\"fixed\""),
        ("csv", "run_id,scenario_id"),
        ("junit", "<testsuites"),
    ] {
        let out = bin()
            .args([
                "export",
                "--campaign",
                &id,
                "--format",
                format,
                "--data-dir",
            ])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "export {format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(probe),
            "{format} export looks like {format}"
        );
    }
    let regenerated = bin()
        .args(["export", "--campaign", &id, "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&regenerated.stdout);
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("| Generated"))
            .collect::<Vec<_>>(),
        md.lines()
            .filter(|l| !l.starts_with("| Generated"))
            .collect::<Vec<_>>(),
        "the export is regenerated from stored data"
    );
    let missing = bin()
        .args([
            "export",
            "--campaign",
            "01900000-0000-7000-8000-000000000000",
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!missing.status.success(), "an unknown campaign is an error");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does not exist"));
}

/// `serve` runs the audit retention job at start with the configured
/// retention (here from the environment); a retention below one day is
/// refused before anything starts.
#[test]
fn serve_prunes_old_audit_events_at_start_with_the_configured_retention() {
    let refused = bin()
        .args(["serve", "--audit-retention-days", "0"])
        .output()
        .unwrap();
    assert!(!refused.status.success(), "0 days is refused");

    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let serve = |days: &str| {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = bin()
            .args(["serve", "--no-patrol", "--api-key", "k", "--bind"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--data-dir")
            .arg(dir.path())
            .arg("--ui-dir")
            .arg(dir.path().join("no-ui"))
            .env("AGENTEVAL_AUDIT_RETENTION_DAYS", days)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        (child, port)
    };
    // The audit events with `action`, read as the server left them.
    let count = |action: &str| {
        // -1 while the database or its tables do not exist yet.
        rt.block_on(async {
            let Ok(stored) = Inspect::open_read_only(dir.path()).await else {
                return -1;
            };
            match stored.audit_events().await {
                Ok(events) => events.iter().filter(|e| e.action == action).count() as i64,
                Err(_) => -1,
            }
        })
    };
    let wait_until = |what: &str, ok: &dyn Fn() -> bool| {
        for _ in 0..600 {
            if ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{what} never happened");
    };

    // First start: creates the database (and prunes nothing).
    let (mut first, port) = serve("30");
    wait_until("the first start", &|| {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    wait_until("the first pruning pass", &|| count("audit.prune") == 1);
    first.kill().unwrap();
    first.wait().unwrap();

    // An event 31 days old and one 29 days old.
    rt.block_on(async {
        let now = chrono::Utc::now();
        let clock = Arc::new(ManualClock::new(now));
        let platform = Platform::builder(dir.path())
            .clock(clock.clone())
            .role_models(RoleModels::default())
            .open()
            .await
            .unwrap();
        for (id, days) in [("old", 31), ("recent", 29)] {
            clock.set(now - chrono::Duration::days(days));
            platform
                .audit("test", &format!("test.{id}"), None, "ok")
                .await;
        }
        platform.fixtures().close().await;
    });
    let (mut second, _) = serve("30");
    wait_until("the second pruning pass", &|| count("audit.prune") == 2);
    second.kill().unwrap();
    second.wait().unwrap();
    assert_eq!(
        count("test.old"),
        0,
        "the 31-day-old event is past a 30-day retention"
    );
    assert_eq!(count("test.recent"), 1, "the 29-day-old event stays");
}

#[test]
fn version_names_the_revision_and_the_build_day() {
    let out = bin()
        .arg("--version")
        .output()
        .expect("agenteval --version");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // agenteval 0.1.0 (revision 0123456789ab, built 2026-12-02)
    let rest = text
        .strip_prefix(concat!(
            "agenteval ",
            env!("CARGO_PKG_VERSION"),
            " (revision "
        ))
        .unwrap_or_else(|| panic!("the version first: {text:?}"));
    let (revision, built) = rest
        .trim_end()
        .trim_end_matches(')')
        .split_once(", built ")
        .expect("a build day");
    assert!(
        revision == "unknown"
            || (revision.len() == 12 && revision.chars().all(|c| c.is_ascii_hexdigit())),
        "a git revision: {revision:?}"
    );
    assert!(
        built.len() == 10 && built.chars().filter(|c| *c == '-').count() == 2,
        "a day: {built:?}"
    );
}

#[test]
fn scenarios_list_shows_the_users_packs_apart_from_the_shipped_ones() {
    let data = tempfile::tempdir().expect("tmp");
    let own = data.path().join("scenarios/my_pack");
    std::fs::create_dir_all(&own).expect("mkdir");
    std::fs::write(
        own.join("mine.yaml"),
        "scenarios:\n  - id: mine.one\n    title: One\n    turns:\n      - user: hello\n",
    )
    .expect("write");
    let out = bin()
        .args(["scenarios", "list", "--data-dir"])
        .arg(data.path())
        .env_remove("AGENTEVAL_SCENARIOS")
        .current_dir(data.path())
        .output()
        .expect("agenteval scenarios list");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let (yours, shipped) = text
        .split_once("shipped packs:")
        .unwrap_or_else(|| panic!("two lists: {text}"));
    assert!(yours.starts_with("your packs:\n"), "{text}");
    assert!(
        yours.contains("my_pack") && yours.contains("1 scenario(s)"),
        "{text}"
    );
    assert!(
        !yours.contains("send_email"),
        "a shipped pack is not listed as yours: {text}"
    );
    for pack in ["send_email", "office_agent", "customer_service"] {
        assert!(shipped.contains(pack), "{pack} is shipped: {text}");
    }
    assert!(!shipped.contains("my_pack"), "{text}");
}

#[test]
fn offline_refuses_a_judge_off_this_machine_and_without_it_the_judge_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let with_far_judge = |offline: bool| {
        let mut c = bin();
        c.current_dir(dir.path())
            .env("AGENTEVAL_JUDGE_BASE_URL", "http://10.1.2.3:8080/v1")
            .env("AGENTEVAL_JUDGE_MODEL", "far-judge")
            .env_remove("AGENTEVAL_OFFLINE");
        if offline {
            c.arg("--offline");
        }
        // `export` opens the data folder (and checks the models) but asks
        // no model anything: the judge is never contacted.
        c.args([
            "export",
            "--campaign",
            "00000000-0000-7000-8000-000000000001",
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .expect("run agenteval")
    };
    let refused = with_far_judge(true);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("OFFLINE_REFUSED")
            && stderr.contains("the judge model")
            && stderr.contains("http://10.1.2.3:8080")
            && stderr.contains("turn offline mode off"),
        "a clear error with its code, the host and a suggestion: {stderr}"
    );
    let accepted = with_far_judge(false);
    let stderr = String::from_utf8_lossy(&accepted.stderr);
    assert!(
        !stderr.contains("OFFLINE_REFUSED") && stderr.contains("NOT_FOUND"),
        "without offline mode the judge is accepted; only the campaign is unknown: {stderr}"
    );
}

/// `keys create`, `list` and `revoke` on a data folder: the key is printed
/// once and is the one a platform on that folder recognises, until it is
/// revoked; the list never shows it; refusals say why.
#[test]
fn keys_are_created_listed_and_revoked_on_a_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    let keys = |args: &[&str]| {
        bin()
            .arg("keys")
            .args(args)
            .arg("--data-dir")
            .arg(dir.path())
            .output()
            .expect("run agenteval keys")
    };
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // The caller the folder's platform recognises by `key`.
    let recognised = |key: &str| {
        rt.block_on(async {
            let platform = Platform::builder(dir.path())
                .role_models(RoleModels::default())
                .open()
                .await
                .unwrap();
            let caller = platform.authenticate(key).await.unwrap();
            platform.fixtures().close().await;
            caller.map(|c| (c.name, c.role.to_string()))
        })
    };

    let created = keys(&["create", "--name", "alice", "--role", "viewer"]);
    let (stdout, stderr) = (text(&created.stdout), text(&created.stderr));
    assert!(created.status.success(), "{stdout}\n{stderr}");
    let key = stdout.lines().next().unwrap_or("").trim().to_string();
    assert!(
        key.starts_with("aek_") && key.len() == 68,
        "the key alone on the first line of stdout: {stdout}"
    );
    assert!(
        stderr.contains("shown only once"),
        "it says the key is shown only once: {stderr}"
    );
    assert_eq!(
        recognised(&key),
        Some(("alice".into(), "viewer".into())),
        "the printed key is alice's, a viewer"
    );

    let again = keys(&["create", "--name", "alice", "--role", "editor"]);
    assert!(!again.status.success(), "a taken name is refused");
    assert!(
        text(&again.stderr).contains("exists already"),
        "{}",
        text(&again.stderr)
    );
    let bad_role = keys(&["create", "--name", "bob", "--role", "owner"]);
    assert!(!bad_role.status.success(), "an unknown role is refused");
    assert!(
        text(&bad_role.stderr).contains("viewer, editor, admin"),
        "the roles are named: {}",
        text(&bad_role.stderr)
    );
    let bad_name = keys(&["create", "--name", "al/ice", "--role", "admin"]);
    assert!(!bad_name.status.success());
    assert!(text(&bad_name.stderr).contains("INVALID_INPUT"));

    let list = keys(&["list"]);
    let listed = text(&list.stdout);
    assert!(list.status.success(), "{listed}");
    let mut lines = listed.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap()
        .split("  ")
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        header.iter().map(|c| c.trim()).collect::<Vec<_>>(),
        ["NAME", "ROLE", "PREFIX", "CREATED", "LAST USED", "REVOKED"]
    );
    let alice = lines.next().expect("alice's line");
    assert!(
        alice.starts_with("alice") && alice.contains("viewer") && alice.contains(&key[..12]),
        "name, role and prefix: {alice}"
    );
    assert!(alice.trim_end().ends_with('-'), "not revoked: {alice}");
    assert!(
        lines.next().is_none(),
        "the refused keys were not made: {listed}"
    );
    assert!(
        !listed.contains(&key[12..]),
        "the list never shows the key: {listed}"
    );

    let revoked = keys(&["revoke", "alice"]);
    assert!(revoked.status.success(), "{}", text(&revoked.stderr));
    assert!(text(&revoked.stdout).contains("revoked key alice"));
    assert_eq!(recognised(&key), None, "a revoked key is not recognised");
    let listed = text(&keys(&["list"]).stdout);
    let alice = listed.lines().nth(1).expect("alice's line");
    assert!(
        alice.trim_end().ends_with("UTC"),
        "revoked, with its date: {alice}"
    );
    let missing = keys(&["revoke", "nobody"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("no key named nobody"),
        "{}",
        text(&missing.stderr)
    );

    let audit = rt.block_on(async {
        Inspect::open_read_only(dir.path())
            .await
            .unwrap()
            .audit_events()
            .await
            .unwrap()
    });
    for action in ["key.create", "key.revoke"] {
        assert!(
            audit.iter().any(|e| e.action == action && e.actor == "cli"),
            "{action} is audited as the command line's: {audit:?}"
        );
    }

    let help = bin().args(["keys", "create", "--help"]).output().unwrap();
    let help = text(&help.stdout);
    assert!(
        help.contains("shown") && help.contains("viewer") && help.contains("--data-dir"),
        "{help}"
    );
}
