//! The steps of a gating run: choosing scenarios, finding the target,
//! checking the role models, running, exploring, writing the exports.

use super::*;
use agenteval_engine::scenario::PackSource;

/// The scenarios the config selects: loaded from its folders (any invalid
/// file stops the run), narrowed by ids and tags.
/// Adds the regression scenarios drafted from exploration findings on
/// `target` (the user's packs in the data folder) that the configuration
/// did not select already: what exploration found is guarded in every run.
pub(super) async fn add_promoted(
    platform: &Platform,
    data_dir: &std::path::Path,
    target: agenteval_engine::TargetId,
    scenarios: &mut Vec<Scenario>,
) -> Result<(), Stop> {
    let user_packs = agenteval_engine::scenario::user_packs_dir(data_dir);
    if !user_packs.is_dir() {
        return Ok(());
    }
    let loaded = platform
        .load_scenarios(std::slice::from_ref(&user_packs))
        .await
        .map_err(internal)?;
    for e in &loaded.errors {
        eprintln!("agenteval: skipped in {}: {e}", user_packs.display());
    }
    let added: Vec<Scenario> = platform
        .promoted_scenarios(target)
        .await
        .map_err(internal)?
        .into_iter()
        .filter(|p| !scenarios.iter().any(|s| s.id == p.id))
        .collect();
    if !added.is_empty() {
        let ids: Vec<&str> = added.iter().map(|s| s.id.as_str()).collect();
        eprintln!(
            "agenteval: {} scenario(s) found by exploration, now guarded: {}",
            added.len(),
            ids.join(", ")
        );
    }
    scenarios.extend(added);
    Ok(())
}

pub(super) async fn select_scenarios(
    platform: &Platform,
    cfg: &Config,
) -> Result<Vec<Scenario>, Stop> {
    // The folders, then the shipped packs when some are named (a folder's
    // pack replaces the shipped one of its name); of the shipped, only
    // those named.
    let mut sources: Vec<PackSource> = cfg
        .scenario_paths
        .iter()
        .cloned()
        .map(PackSource::Dir)
        .collect();
    if !cfg.shipped_packs.is_empty() {
        sources.push(PackSource::Shipped);
    }
    let mut loaded = platform
        .load_scenario_sources(&sources)
        .await
        .map_err(internal)?;
    loaded
        .scenarios
        .retain(|s| !s.shipped || cfg.shipped_packs.contains(&s.pack));
    if !loaded.errors.is_empty() {
        let mut lines: Vec<String> = loaded.errors.iter().map(ToString::to_string).collect();
        lines.push(format!(
            "{} error(s) in the scenario packs: fix them (`agenteval scenarios check DIR` lists them too)",
            loaded.errors.len()
        ));
        return Err(Stop::Usage(lines));
    }
    let mut errors = Vec::new();
    for (i, id) in cfg.scenario_ids.iter().enumerate() {
        if !loaded.scenarios.iter().any(|s| &s.id == id) {
            errors.push(
                cfg.error_at_item(
                    &["scenarios", "ids"],
                    i,
                    format!("scenario {id:?} is not in the scenario folders"),
                )
                .to_string(),
            );
        }
    }
    let total = loaded.scenarios.len();
    let selected: Vec<Scenario> = loaded
        .scenarios
        .into_iter()
        .filter(|s| cfg.scenario_ids.is_empty() || cfg.scenario_ids.contains(&s.id))
        .filter(|s| {
            cfg.scenario_tags.is_empty() || s.tags.iter().any(|t| cfg.scenario_tags.contains(t))
        })
        .collect();
    if errors.is_empty() && selected.is_empty() {
        errors.push(
            cfg.error_at(
                &["scenarios"],
                format!(
                    "no scenario selected: {total} loaded, none matches the ids and tags given"
                ),
            )
            .to_string(),
        );
    }
    for id in cfg.rounds.keys() {
        if !selected.iter().any(|s| &s.id == id) {
            errors.push(
                cfg.error_at(
                    &["plan", "rounds", id],
                    format!("rounds given for {id:?}, which is not a selected scenario"),
                )
                .to_string(),
            );
        }
    }
    if errors.is_empty() {
        Ok(selected)
    } else {
        Err(Stop::Usage(errors))
    }
}

/// A baseline or comparison side: a campaign id in the data folder, or a
/// JSON export file.
pub async fn load_side(platform: &Platform, spec: &str) -> Result<Side, String> {
    match uuid::Uuid::parse_str(spec.trim()) {
        Ok(id) => ci::side_from_campaign(platform, id).await,
        Err(_) => ci::side_from_file(Path::new(spec)),
    }
}

/// The config's target: the stored one with the same name and settings,
/// so that campaigns of the same target line up in period comparisons, or
/// a new one.
pub(super) async fn find_or_create_target(
    platform: &Platform,
    cfg: &Config,
) -> Result<Target, Stop> {
    let want = &cfg.target;
    let existing = platform.list_targets().await.map_err(internal)?;
    if let Some(t) = existing.into_iter().find(|t| {
        t.name == want.name
            && t.channel == want.channel
            && want.concurrency.is_none_or(|c| c == t.concurrency)
            && want.timeout_ms.is_none_or(|c| c == t.timeout_ms)
            && want.max_retries.is_none_or(|c| c == t.max_retries)
            && want.rate_per_second == t.rate_per_second
    }) {
        return Ok(t);
    }
    platform.create_target(want.clone()).await.map_err(|e| {
        Stop::usage(
            cfg.error_at(
                &["target"],
                format!("{} ({})", e.body.message, e.body.suggestion),
            )
            .to_string(),
        )
    })
}

/// Sends the connection test until the target answers or `wait_seconds`
/// have passed (a target started just before in the same job may still be
/// coming up).
pub(super) async fn wait_for_target(
    platform: &Platform,
    target: &Target,
    wait_seconds: u64,
) -> Result<(), Stop> {
    let deadline = Instant::now() + Duration::from_secs(wait_seconds);
    loop {
        let probe = platform.test_target(target.id).await.map_err(internal)?;
        if probe.ok {
            return Ok(());
        }
        if Instant::now() >= deadline {
            // Read by name, so that richer probes (message, suggestion)
            // are shown as they come.
            let v = serde_json::to_value(&probe).unwrap_or_default();
            let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            let why = field("message")
                .or_else(|| field("error"))
                .unwrap_or_else(|| "no answer".into());
            let suggestion = field("suggestion")
                .unwrap_or_else(|| "start the agent or fix the target in the config".into());
            return Err(Stop::Unreachable(format!(
                "the target {} ({}) could not be reached{}: {why}. {suggestion}",
                target.name,
                target.channel.model_label(),
                if wait_seconds > 0 {
                    format!(" within {wait_seconds} s")
                } else {
                    String::new()
                }
            )));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The role clients for this run; a configured judge and tool simulator,
/// and the virtual-user model when exploration is played by it, must
/// answer a short request.
pub(super) async fn check_role_models(
    platform: &Platform,
    cfg: &Config,
) -> Result<RoleClients, Stop> {
    let models = platform.role_models();
    let exploring_with_model = cfg
        .exploration
        .is_some_and(|e| e.played_by == PlayedBy::Model);
    let mut required: Vec<(Role, &ModelConfig)> = Vec::new();
    if let Some(j) = &models.judge {
        required.push((Role::Judge, j));
    }
    if exploring_with_model && let Some(u) = &models.virtual_user {
        required.push((Role::VirtualUser, u));
    }
    if let Some(t) = &models.tool_simulator {
        required.push((Role::ToolSimulator, t));
    }
    for (role, m) in required {
        let what = match role {
            Role::Judge => "judge",
            Role::VirtualUser => "virtual-user",
            Role::Analyst => "analyst",
            Role::ToolSimulator => "tool-simulator",
        };
        let client = m.client(role, &platform.http).map_err(|e| {
            Stop::usage(format!(
                "error: the {what} model cannot be used: {}",
                e.message
            ))
        })?;
        if let Err(e) = client
            .complete(&[ChatMessage::user(
                agenteval_engine::target_probe::PROBE_MESSAGE,
            )])
            .await
        {
            return Err(Stop::Unreachable(format!(
                "the {what} model {} at {} could not be reached: {}. Start it, fix AGENTEVAL_{}_BASE_URL, or unset AGENTEVAL_{}_* to use the offline fallback",
                m.model,
                m.base_url,
                e.message,
                role.env_prefix(),
                role.env_prefix()
            )));
        }
    }
    let mut clients = platform.role_clients();
    if !exploring_with_model {
        clients.virtual_user = None;
    }
    Ok(clients)
}

/// Executes the campaign's runs now, at most a few per request slot of the
/// target in flight (the target's channel enforces its own limits).
pub(super) async fn execute_runs(
    platform: &Arc<Platform>,
    ids: Vec<RunId>,
    concurrency: u32,
    progress: &Progress,
) {
    let limit = (concurrency.max(1) as usize * 4).min(256);
    platform
        .execute_runs(ids, limit, |result| {
            progress.run_done();
            if let Err(e) = result {
                tracing::error!(error = ?e, "run failed to execute");
            }
        })
        .await;
}

/// Starts `sessions` sessions over the seed cells (persona × goal, in
/// order, round after round), then plays them side by side and has each
/// reviewed. Returns how many were played and why others were refused.
pub(super) async fn explore(
    platform: &Platform,
    cfg: &Config,
    campaign_id: uuid::Uuid,
    sessions: u32,
    clients: &RoleClients,
    progress: &Progress,
) -> (usize, Vec<String>) {
    let Some(seeds) = &cfg.seeds else {
        return (0, Vec::new());
    };
    let cells: Vec<(String, String)> = seeds
        .personas
        .iter()
        .flat_map(|p| {
            seeds
                .goals
                .iter()
                .map(move |g| (p.id.clone(), g.id.clone()))
        })
        .collect();
    let mut started = Vec::new();
    let mut refusals = Vec::new();
    for (persona_id, goal_id) in cells.iter().cycle().take(sessions as usize) {
        let seed = ExploreSeed {
            campaign_id: agenteval_engine::CampaignId(campaign_id),
            persona_id: persona_id.clone(),
            goal_id: goal_id.clone(),
            variant: None,
            trigger: Trigger::Manual,
        };
        match start_seed(platform, &seed, clients).await {
            Ok(s) => started.push(s),
            Err(e) => {
                progress.session_done();
                refusals.push(format!(
                    "{persona_id} × {goal_id} not started: {}",
                    e.body.message
                ));
            }
        }
    }
    let played = started.len();
    let plays = started.into_iter().map(|s| async move {
        let _ = play_seed(platform, s, clients, JudgeSampling::default()).await;
        progress.session_done();
    });
    futures_join_all(plays).await;
    (played, refusals)
}

/// Awaits every future (side by side, on this task).
pub(super) async fn futures_join_all<F: std::future::Future<Output = ()>>(
    futures: impl Iterator<Item = F>,
) {
    let mut set: Vec<std::pin::Pin<Box<F>>> = futures.map(Box::pin).collect();
    std::future::poll_fn(|cx| {
        set.retain_mut(|f| f.as_mut().poll(cx).is_pending());
        if set.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

/// The exports, written whatever the verdict: the Markdown report, the
/// report as JSON (the report in hand, written as it is serialized) and
/// JUnit XML.
pub(super) async fn write_exports(
    s: &Setup,
    campaign_id: CampaignId,
    done: &Concluded,
) -> Result<Vec<PathBuf>, Stop> {
    let lang = crate::lang();
    let markdown = s
        .platform
        .export_campaign(campaign_id, ExportFormat::Md, lang)
        .await
        .map_err(internal)?;
    let f = &done.report.fixed;
    let gate_word = if f.passed + f.failed == 0 {
        "no verdict"
    } else if done.verdict.passed() {
        "passed"
    } else {
        "failed"
    };
    let runs = s.platform.list_runs(campaign_id).await.map_err(internal)?;
    let junit = ci::junit::render(
        &ci::junit::Suite {
            name: &done.report.campaign.name,
            timestamp: done.report.campaign.window_start.to_rfc3339(),
            pass_rate: f.pass_rate,
            gate: gate_word,
        },
        &done.results,
        &runs,
    );
    drop(runs);
    let failed_runs = s
        .platform
        .failed_run_steps(campaign_id, &done.report)
        .await
        .map_err(internal)?;
    let out_dir = &s.out_dir;
    std::fs::create_dir_all(out_dir).map_err(|e| {
        Stop::usage(format!(
            "error: cannot create the output folder {}: {e}",
            out_dir.display()
        ))
    })?;
    let cannot = |path: &Path, e: &dyn std::fmt::Display| {
        Stop::usage(format!("error: cannot write {}: {e}", path.display()))
    };
    let md_path = out_dir.join(REPORT_MD);
    std::fs::write(&md_path, markdown).map_err(|e| cannot(&md_path, &e))?;
    // What `export --format json` writes, without holding it as a string.
    let json_path = out_dir.join(REPORT_JSON);
    let file = std::fs::File::create(&json_path).map_err(|e| cannot(&json_path, &e))?;
    let mut w = std::io::BufWriter::new(file);
    let export = agenteval_engine::export::JsonExport {
        report: &done.report,
        failed_runs: &failed_runs,
    };
    agenteval_engine::i18n::sync_scope(lang, || serde_json::to_writer_pretty(&mut w, &export))
        .map_err(|e| cannot(&json_path, &e))?;
    std::io::Write::flush(&mut w).map_err(|e| cannot(&json_path, &e))?;
    let junit_path = out_dir.join(JUNIT_XML);
    std::fs::write(&junit_path, junit).map_err(|e| cannot(&junit_path, &e))?;
    Ok(vec![md_path, json_path, junit_path])
}
