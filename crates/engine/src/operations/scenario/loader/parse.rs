//! Reading one pack file: its YAML, each scenario checked, every problem
//! at its file and line.

use super::{LoadError, content_hash};
use crate::channel::ToolSpec;
use crate::msg;
use crate::scenario::{Check, Lineage, Scenario, ScenarioTurn};
use regex::Regex;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::LazyLock;

mod workspace;
use workspace::{with_office_tools, workspace_check, workspace_problems};

/// The file as written. Unknown keys are refused so that a typo
/// (`check:` for `checks:`) is an error instead of a silently empty list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackFile {
    #[serde(default)]
    defaults: Defaults,
    scenarios: Vec<ScenarioDef>,
}

/// Values every scenario of the file inherits unless it sets its own
/// (tags and facts are merged).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    facts: Vec<String>,
    #[serde(default)]
    tools: Vec<ToolSpec>,
    #[serde(default)]
    max_steps: Option<u32>,
    #[serde(default)]
    workspace: Option<String>,
    #[serde(default)]
    office_tools: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDef {
    id: String,
    title: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    facts: Vec<String>,
    #[serde(default)]
    key_fields: Vec<String>,
    #[serde(default)]
    tools: Option<Vec<ToolSpec>>,
    #[serde(default)]
    max_steps: Option<u32>,
    /// A folder beside the pack file (see `docs/OFFICE_TOOLS.md`).
    #[serde(default)]
    workspace: Option<String>,
    /// The office tools offered over the workspace (all nine when absent).
    #[serde(default)]
    office_tools: Option<Vec<String>>,
    turns: Vec<TurnDef>,
    #[serde(default)]
    lineage: Option<Lineage>,
    #[serde(default)]
    from_traces: Option<crate::domain::scenario::TraceLineage>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnDef {
    user: String,
    #[serde(default)]
    checks: Vec<Check>,
    #[serde(default)]
    max_steps: Option<u32>,
}

static ID_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$").expect("static regex"));
static ID_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?id\s*:\s*(.+?)\s*$").expect("static regex"));
static TYPE_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?\{?\s*type\s*:").expect("static regex"));
static USER_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?\{?\s*user\s*:").expect("static regex"));

/// Parses and validates one file's text. `shown` names the file in errors;
/// `source_file` is stored on each scenario.
pub fn parse_file(
    text: &str,
    shown: &str,
    source_file: &str,
    pack: &str,
) -> std::result::Result<Vec<Scenario>, Vec<LoadError>> {
    let err = |line: usize, message: String| load_error(shown, line, &message);
    let file: PackFile = match serde_yaml_ng::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let (line, said) = yaml_error(text, &e);
            let mut error = err(line, said.render(crate::i18n::Lang::En));
            error.said = Some(said);
            return Err(vec![error]);
        }
    };
    if file.scenarios.is_empty() {
        return Err(vec![err(
            1,
            "the file defines no scenarios (`scenarios:` is empty)".into(),
        )]);
    }
    let locator = Locator::new(text);
    let spans = scenario_spans(&locator, &file.scenarios);
    let mut errors = Vec::new();
    if let Some(p) = file.defaults.max_steps.and_then(max_steps_problem) {
        errors.push(err(1, format!("defaults: {p}")));
    }
    let mut out = Vec::new();
    for (mut def, span) in file.scenarios.into_iter().zip(spans) {
        if span.repeated {
            errors.push(err(
                span.start,
                format!("scenario id `{}` appears twice in this file", def.id),
            ));
        }
        let tools = def
            .tools
            .take()
            .unwrap_or_else(|| file.defaults.tools.clone());
        def.workspace = def.workspace.or_else(|| file.defaults.workspace.clone());
        def.office_tools = def
            .office_tools
            .or_else(|| file.defaults.office_tools.clone());
        for problem in workspace_problems(&def) {
            errors.push(err(span.start, format!("scenario `{}`: {problem}", def.id)));
        }
        let tools = with_office_tools(tools, &def);
        for (line, msg) in scenario_problems(&def, &tools, &locator, &span) {
            errors.push(err(line, msg));
        }
        out.push(scenario_of(
            def,
            tools,
            &file.defaults,
            pack,
            source_file,
            span.start,
        ));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.sort_by_key(|e| e.line);
        errors.dedup();
        Err(errors)
    }
}

/// One error, one line of output: `file:line: message`.
fn load_error(shown: &str, line: usize, message: &str) -> LoadError {
    LoadError {
        file: shown.to_string(),
        line: line.max(1) as u32,
        message: message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        said: None,
    }
}

/// The line and message of a file that is not a pack file as YAML reads
/// it: where the parser stopped (its column, or the end of the file).
pub(in crate::operations::scenario) fn yaml_error(
    text: &str,
    e: &serde_yaml_ng::Error,
) -> (usize, crate::i18n::Msg) {
    let (line, column) = e
        .location()
        .map(|l| (l.line(), Some(l.column())))
        .unwrap_or((1, None));
    // serde_yaml_ng appends " at line L column C"; the line is
    // already in front of the message.
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) if column.is_some() => message[..i].to_string(),
        _ => message,
    };
    // At end of input the parser points one past the last line.
    let last_line = text_lines(text);
    let problem = super::yaml_words::yaml_problem(&message);
    match column {
        _ if line > last_line => (last_line, msg!("yaml-at-end", problem = problem)),
        Some(c) => (line, msg!("yaml-at-column", problem = problem, column = c)),
        None => (line, problem),
    }
}

/// Where a scenario stands in its file.
struct ScenarioSpan {
    /// The line of its `id:`.
    start: usize,
    /// The next scenario's line (exclusive), or none.
    end: usize,
    /// Whether an earlier scenario of the file has its id.
    repeated: bool,
}

/// The span of each scenario of the file, in order.
fn scenario_spans(locator: &Locator, defs: &[ScenarioDef]) -> Vec<ScenarioSpan> {
    let mut ids_in_file: HashMap<String, usize> = HashMap::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut repeated: Vec<bool> = Vec::new();
    for def in defs {
        let nth = ids_in_file.entry(def.id.clone()).or_insert(0);
        starts.push(locator.scenario_line(&def.id, *nth));
        repeated.push(*nth > 0);
        *nth += 1;
    }
    starts
        .iter()
        .zip(repeated)
        .map(|(&start, repeated)| ScenarioSpan {
            start,
            end: starts
                .iter()
                .copied()
                .filter(|&l| l > start)
                .min()
                .unwrap_or(usize::MAX),
            repeated,
        })
        .collect()
}

/// What is wrong with one scenario: its id, title, turns, user messages
/// and checks, each at its line.
fn scenario_problems(
    def: &ScenarioDef,
    tools: &[ToolSpec],
    locator: &Locator,
    span: &ScenarioSpan,
) -> Vec<(usize, String)> {
    let ScenarioSpan { start, end, .. } = *span;
    let mut problems: Vec<(usize, String)> = Vec::new();
    if !ID_RE.is_match(&def.id) {
        problems.push((
            start,
            format!(
                "scenario id `{}` must be letters, digits, `_`, `-` or `.`, starting with a letter or digit",
                def.id
            ),
        ));
    }
    if def.title.trim().is_empty() {
        problems.push((start, format!("scenario `{}` has an empty title", def.id)));
    }
    if def.turns.is_empty() {
        problems.push((
            start,
            format!(
                "scenario `{}` has no turns; give at least one `- user: ...`",
                def.id
            ),
        ));
    }
    if let Some(m) = def.max_steps {
        problems
            .extend(max_steps_problem(m).map(|p| (start, format!("scenario `{}`: {p}", def.id))));
    }
    problems.extend(tool_problems(tools, locator, start, end));
    let mut check_index = 0usize;
    for (t, turn) in def.turns.iter().enumerate() {
        if let Some(m) = turn.max_steps {
            problems.extend(max_steps_problem(m).map(|p| {
                (
                    locator.nth_in(&USER_LINE_RE, start, end, t),
                    format!("scenario `{}` turn {}: {p}", def.id, t + 1),
                )
            }));
        }
        if turn.user.trim().is_empty() {
            problems.push((
                locator.nth_in(&USER_LINE_RE, start, end, t),
                format!(
                    "scenario `{}` turn {} has an empty user message",
                    def.id,
                    t + 1
                ),
            ));
        }
        for check in &turn.checks {
            // A workspace's office tools answer errors of their own
            // (`FILE_NOT_FOUND`, ...): recovery needs no declared response.
            let recovers = matches!(check, Check::RecoversFromError { .. });
            let checked = if recovers && def.workspace.is_some() {
                Ok(())
            } else {
                validate_check(check, tools)
            }
            .and_then(|()| workspace_check(check, def.workspace.is_some()));
            if let Err(msg) = checked {
                problems.push((
                    locator.nth_in(&TYPE_LINE_RE, start, end, check_index),
                    format!(
                        "scenario `{}` turn {}: {} check: {msg}",
                        def.id,
                        t + 1,
                        check.kind()
                    ),
                ));
            }
            check_index += 1;
        }
    }
    problems
}

/// The scenario as loaded: the file's defaults filled in (tags and facts
/// merged), where it was found, its content hash.
fn scenario_of(
    def: ScenarioDef,
    tools: Vec<ToolSpec>,
    defaults: &Defaults,
    pack: &str,
    source_file: &str,
    start: usize,
) -> Scenario {
    let mut tags = defaults.tags.clone();
    for t in def.tags {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    let mut facts = defaults.facts.clone();
    facts.extend(def.facts);
    let mut scenario = Scenario {
        id: def.id,
        title: def.title,
        pack: pack.to_string(),
        tags,
        group: def.group.or_else(|| defaults.group.clone()),
        system: def.system.or_else(|| defaults.system.clone()),
        facts,
        key_fields: def.key_fields,
        tools: tools.into(),
        max_steps: def.max_steps.or(defaults.max_steps),
        workspace: def
            .workspace
            .map(|folder| crate::domain::scenario::WorkspaceRef {
                folder,
                location: String::new(),
                files_hash: String::new(),
            }),
        turns: def
            .turns
            .into_iter()
            .map(|t| ScenarioTurn {
                user: t.user,
                checks: t.checks,
                max_steps: t.max_steps,
            })
            .collect(),
        source_file: source_file.to_string(),
        shipped: false,
        source_line: start as u32,
        content_hash: String::new(),
        lineage: def.lineage,
        from_traces: def.from_traces,
    };
    scenario.content_hash = content_hash(&scenario);
    scenario
}

/// What is wrong with a `max_steps`.
fn max_steps_problem(m: u32) -> Option<String> {
    use crate::domain::steps::MOST_MAX_STEPS;
    (!(1..=MOST_MAX_STEPS).contains(&m))
        .then(|| format!("`max_steps` is {m}; it must be between 1 and {MOST_MAX_STEPS}"))
}

static NAME_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?name\s*:\s*(.+?)\s*$").expect("static regex"));

/// What is wrong with the tools a scenario offers, each at the line of the
/// tool's `name:` (in the scenario, or in the file's defaults): names
/// given once, and responses that say one thing when one thing holds.
fn tool_problems(
    tools: &[ToolSpec],
    locator: &Locator,
    start: usize,
    end: usize,
) -> Vec<(usize, String)> {
    let mut problems = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let line = locator.name_line(&tool.name, start, end);
        let mut say =
            |message: String| problems.push((line, format!("tool `{}`: {message}", tool.name)));
        if tool.name.trim().is_empty() {
            say("the name is empty".into());
        }
        if tools[..i].iter().any(|t| t.name == tool.name) {
            say("offered twice; give each tool once".into());
        }
        if !tool.parameters.is_null()
            && let Err(e) = crate::checks::schema_validator(&tool.parameters)
        {
            say(format!("`parameters` is not a valid JSON schema: {e}"));
        }
        for (r, response) in tool.responses.iter().enumerate() {
            let n = r + 1;
            match (&response.result, &response.error) {
                (Some(_), Some(_)) => say(format!(
                    "response {n} gives both `result` and `error`; give one"
                )),
                (None, None) => say(format!("response {n} gives neither `result` nor `error`")),
                _ => {}
            }
            if response.when.as_ref().is_some_and(|w| !w.is_object()) {
                say(format!(
                    "response {n}: `when` must be an object of argument values, e.g. {{file_path: a.xlsx}}"
                ));
            }
            if let Some(e) = &response.error
                && (e.code.trim().is_empty() || e.message.trim().is_empty())
            {
                say(format!(
                    "response {n}: an `error` needs a `code` and a `message`"
                ));
            }
            if response.when.is_none() && r + 1 < tool.responses.len() {
                say(format!(
                    "response {n} has no `when`, so the responses after it are never used; put the default last"
                ));
            }
        }
    }
    problems
}

fn text_lines(text: &str) -> usize {
    text.lines().count().max(1)
}

fn validate_check(check: &Check, tools: &[ToolSpec]) -> std::result::Result<(), String> {
    match check {
        Check::Contains { value, any, .. } | Check::NotContains { value, any, .. } => {
            let empty =
                value.as_deref().is_none_or(|v| v.is_empty()) && any.iter().all(|v| v.is_empty());
            if empty {
                return Err("give `value` or a non-empty `any` list".into());
            }
        }
        // Compiled into the caches the checks use, so that runs find them
        // ready.
        Check::Regex { pattern } => {
            crate::checks::compiled(pattern).map_err(|e| {
                // The syntax error's last line says what is wrong; the lines
                // above draw a caret that makes no sense on one line.
                let text = e.to_string();
                let reason = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .trim()
                    .trim_start_matches("error: ")
                    .to_string();
                format!("the pattern `{pattern}` does not compile: {reason}")
            })?;
        }
        Check::JsonPath { path, .. } => {
            crate::checks::json_path(path)
                .map_err(|e| format!("`{path}` is not a valid JSONPath: {e}"))?;
        }
        Check::MaxLatencyMs { ms } => {
            if *ms == 0 {
                return Err("`ms` must be greater than 0".into());
            }
        }
        Check::ToolCalled {
            name,
            arguments_schema,
        } => {
            offered(name, tools)?;
            if let Some(schema) = arguments_schema {
                crate::checks::schema_validator(schema)
                    .map_err(|e| format!("`arguments_schema` is not a valid JSON schema: {e}"))?;
            }
        }
        Check::AsksClarification { field } => {
            if field.as_deref().is_some_and(|f| f.trim().is_empty()) {
                return Err("`field` is empty; omit it or name the parameter".into());
            }
        }
        Check::NoUnverifiedNumbers
        | Check::NoRepeat
        | Check::NoUnknownTools
        | Check::Document { .. }
        | Check::FileExists { .. } => {}
        Check::ToolSequence { calls, .. } => {
            if calls.is_empty() {
                return Err("`calls` is empty; list the calls in the order expected".into());
            }
            for call in calls {
                offered(&call.name, tools)?;
                if call.arguments.as_ref().is_some_and(|a| !a.is_object()) {
                    return Err(format!(
                        "the `arguments` of `{}` must be an object (the values the call must hold)",
                        call.name
                    ));
                }
            }
        }
        Check::ToolNotCalled { name } => {
            if name.trim().is_empty() {
                return Err("`name` is empty".into());
            }
        }
        Check::RecoversFromError { .. } => {
            if !tools.iter().any(|t| !t.responses.is_empty()) {
                return Err(
                    "no tool of the scenario declares `responses`, so no tool can return an error"
                        .into(),
                );
            }
        }
        Check::Rubric { rubric, min_score } => {
            if rubric.trim().is_empty() {
                return Err("`rubric` is empty".into());
            }
            if let Some(m) = min_score
                && !(1..=5).contains(m)
            {
                return Err(format!("`min_score` is {m}; it must be between 1 and 5"));
            }
        }
    }
    Ok(())
}

/// That a check's tool is offered, so that the target can call it.
fn offered(name: &str, tools: &[ToolSpec]) -> std::result::Result<(), String> {
    if name.trim().is_empty() {
        return Err("`name` is empty".into());
    }
    if !tools.iter().any(|t| t.name == name) {
        return Err(format!(
            "tool `{name}` is not offered in the scenario's `tools`, so the target cannot call it"
        ));
    }
    Ok(())
}

/// Finds lines in the source text for errors that serde cannot place
/// (semantic ones found after parsing).
struct Locator {
    lines: Vec<String>,
    /// The 1-based lines of the `id:` lines of each id value, in order.
    ids: HashMap<String, Vec<usize>>,
}

impl Locator {
    fn new(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut ids: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, l) in lines.iter().enumerate() {
            if let Some(c) = ID_LINE_RE.captures(l) {
                let v = c[1].trim_matches(|ch| ch == '"' || ch == '\'').to_string();
                ids.entry(v).or_default().push(i + 1);
            }
        }
        Self { lines, ids }
    }

    /// The line of the `nth` (0-based) scenario with this id.
    fn scenario_line(&self, id: &str, nth: usize) -> usize {
        self.ids
            .get(id)
            .and_then(|lines| lines.get(nth))
            .copied()
            .unwrap_or(1)
    }

    /// The line of tool `name`'s `name:` within `[start, end)`, else in the
    /// file's defaults (before the first scenario), else `start`.
    fn name_line(&self, name: &str, start: usize, end: usize) -> usize {
        let first = self
            .ids
            .values()
            .flatten()
            .copied()
            .min()
            .unwrap_or(usize::MAX);
        let is_it = |(_, l): &(usize, &String)| {
            NAME_LINE_RE
                .captures(l)
                .is_some_and(|c| c[1].trim_matches(|ch| ch == '"' || ch == '\'') == name)
        };
        let numbered = || self.lines.iter().enumerate().map(|(i, l)| (i + 1, l));
        numbered()
            .filter(|(n, _)| *n >= start && *n < end)
            .find(is_it)
            .or_else(|| numbered().filter(|(n, _)| *n < first).find(is_it))
            .map_or(start, |(n, _)| n)
    }

    /// The `nth` (0-based) line matching `re` within `[start, end)`; the
    /// scenario's own line when it cannot be found.
    fn nth_in(&self, re: &Regex, start: usize, end: usize, nth: usize) -> usize {
        self.lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(n, l)| *n >= start && *n < end && re.is_match(l))
            .nth(nth)
            .map(|(n, _)| n)
            .unwrap_or(start)
    }
}
