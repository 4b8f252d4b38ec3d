//! CSV exports: one row per exploration session, one per fixed run.

/// Exploration sessions as CSV, one row per session.
/// The built-in virtual user's issues are in `lang`; anyone else's as
/// written.
pub fn sessions_csv(
    sessions: &[crate::exploration::session::ExplorationSession],
    lang: crate::i18n::Lang,
) -> String {
    sessions_csv_part(sessions, lang, true)
}

/// The sessions CSV's lines of `sessions`, after its header line when
/// `header` (a page of a streamed export has none but the first).
pub fn sessions_csv_part(
    sessions: &[crate::exploration::session::ExplorationSession],
    lang: crate::i18n::Lang,
    header: bool,
) -> String {
    let issues = |list: &[crate::i18n::Text]| {
        list.iter()
            .map(|t| t.render(lang))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let header_line = [
        "session_id",
        "status",
        "trigger",
        "end_reason",
        "persona_id",
        "goal_id",
        "variant",
        "user_turns",
        "goal_achieved",
        "emotion",
        "blockers",
        "misled",
        "judge_status",
        "started_at",
        "ended_at",
        "played_by",
        "user_model",
    ];
    if header {
        let _ = w.write_record(header_line);
    }
    for s in sessions {
        let str_of = |v: serde_json::Value| v.as_str().map(str::to_string).unwrap_or_default();
        let _ = w.write_record([
            s.id.to_string(),
            serde_json::to_value(s.status)
                .map(str_of)
                .unwrap_or_default(),
            serde_json::to_value(s.trigger)
                .map(str_of)
                .unwrap_or_default(),
            s.end_reason
                .map(|r| r.as_str().to_string())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .map(|r| r.persona_id.clone())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .map(|r| r.goal_id.clone())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .and_then(|r| r.variant.as_ref())
                .and_then(|v| serde_json::to_value(v.kind).ok())
                .map(str_of)
                .unwrap_or_default(),
            s.turn_count.to_string(),
            s.experience
                .as_ref()
                .map(|e| e.goal_achieved.to_string())
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| e.emotion.clone())
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| issues(&e.blockers))
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| issues(&e.misled))
                .unwrap_or_default(),
            s.judge_status.clone(),
            s.started_at.to_rfc3339(),
            s.ended_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            s.played_by.as_str().to_string(),
            s.user_model.clone().unwrap_or_default(),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Runs as CSV, one row per run, for spreadsheets.
/// The check details are in `lang`; the columns keep their machine names.
pub fn runs_csv(runs: &[crate::fixed::Run], lang: crate::i18n::Lang) -> String {
    runs_csv_with_tools(runs, &Default::default(), lang)
}

/// Runs as CSV with, when any run took steps, two more columns at the end:
/// how many steps the run took and the tools it called, in order
/// (`tools` by run; a run absent from it took none).
pub fn runs_csv_with_tools(
    runs: &[crate::fixed::Run],
    tools: &std::collections::HashMap<crate::domain::ids::RunId, Vec<String>>,
    lang: crate::i18n::Lang,
) -> String {
    let with_tools = !tools.is_empty();
    let mut out = runs_csv_header(with_tools);
    out.push_str(&runs_csv_rows(runs, tools, with_tools, lang));
    out
}

/// The runs CSV's header line, with the steps and tools columns when
/// `with_tools`.
pub fn runs_csv_header(with_tools: bool) -> String {
    let mut header = vec![
        "run_id",
        "scenario_id",
        "seq",
        "scheduled_at",
        "finished_at",
        "verdict",
        "error_reason",
        "turns",
        "latency_ms_total",
        "latency_ms_max",
        "tokens_in",
        "tokens_out",
        "cost",
        "key_field_coverage",
        "failed_checks",
    ];
    if with_tools {
        header.extend(["steps", "tools"]);
    }
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(&header);
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The runs CSV's lines of `runs`, under the header of
/// [`runs_csv_header`] (`with_tools` alike).
pub fn runs_csv_rows(
    runs: &[crate::fixed::Run],
    tools: &std::collections::HashMap<crate::domain::ids::RunId, Vec<String>>,
    with_tools: bool,
    lang: crate::i18n::Lang,
) -> String {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for r in runs {
        let m = r.metrics.clone().unwrap_or_default();
        let failed: Vec<String> = r
            .check_results
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("{}: {}", c.kind, c.detail.render(lang)))
            .collect();
        let mut row = vec![
            r.id.to_string(),
            r.scenario_id.clone(),
            r.seq.to_string(),
            r.scheduled_at.to_rfc3339(),
            r.finished_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            r.verdict
                .map(|v| v.as_str().to_string())
                .unwrap_or_else(|| r.status.clone()),
            r.error
                .as_ref()
                .map(|e| e.text().render(lang))
                .unwrap_or_default(),
            m.turns.to_string(),
            m.latency_ms_total.to_string(),
            m.latency_ms_max.to_string(),
            m.tokens_in.to_string(),
            m.tokens_out.to_string(),
            format!("{:.6}", m.cost),
            m.key_field_coverage
                .map(|c| format!("{c:.3}"))
                .unwrap_or_default(),
            failed.join("; "),
        ];
        if with_tools {
            let called = tools.get(&r.id).map(Vec::as_slice).unwrap_or_default();
            row.extend([called.len().to_string(), called.join(" > ")]);
        }
        let _ = w.write_record(&row);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
