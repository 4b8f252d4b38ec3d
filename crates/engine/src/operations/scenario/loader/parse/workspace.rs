//! A scenario's workspace as a pack file gives it: the folder, the office
//! tools it offers, and the checks that read what the agent produced.

use super::ScenarioDef;
use crate::channel::ToolSpec;
use crate::scenario::Check;

/// What is wrong with a scenario's `workspace` and `office_tools`.
pub(super) fn workspace_problems(def: &ScenarioDef) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(folder) = &def.workspace {
        let path = std::path::Path::new(folder);
        let climbs = path
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)));
        if folder.trim().is_empty() || climbs {
            problems.push(format!(
                "`workspace: {folder}` must be a folder beside the pack file, e.g. `workspaces/sales` (no `..`, not absolute)"
            ));
        }
    }
    match (&def.workspace, &def.office_tools) {
        (None, Some(_)) => problems.push(
            "`office_tools` needs a `workspace`: the office tools work over its files".into(),
        ),
        (Some(_), Some(names)) => {
            for name in names.iter().filter(|n| !crate::office::is_office_tool(n)) {
                problems.push(format!(
                    "`{name}` is not an office tool; they are {}",
                    crate::office::OFFICE_TOOLS.join(", ")
                ));
            }
        }
        _ => {}
    }
    problems
}

/// The tools a scenario offers: the declared ones, and with a workspace the
/// office tools it names (all nine when it names none) that no declared
/// tool replaces, described in the language of its first user message.
pub(super) fn with_office_tools(mut tools: Vec<ToolSpec>, def: &ScenarioDef) -> Vec<ToolSpec> {
    if def.workspace.is_none() {
        return tools;
    }
    let lang = crate::scenario::lang_of_text(def.turns.first().map_or("", |t| t.user.as_str()));
    let office = crate::office::office_tool_specs(def.office_tools.as_deref(), lang);
    for spec in office {
        if !tools.iter().any(|t| t.name == spec.name) {
            tools.push(spec);
        }
    }
    tools
}

/// What is wrong with a check on the workspace: it needs one, and says
/// what to look for.
pub(super) fn workspace_check(
    check: &Check,
    has_workspace: bool,
) -> std::result::Result<(), String> {
    let pattern = match check {
        Check::Document {
            path,
            contains,
            sections,
        } => {
            if contains.is_empty() && sections.is_empty() {
                return Err("give `contains` or `sections`: what the document must hold".into());
            }
            path.as_deref()
        }
        Check::FileExists { path } => {
            if path.trim().is_empty() {
                return Err(
                    "`path` is empty; give a file name or a pattern like `output/*.pdf`".into(),
                );
            }
            Some(path.as_str())
        }
        _ => return Ok(()),
    };
    if !has_workspace {
        return Err(
            "the scenario has no `workspace`, so the agent cannot create files; add `workspace: <folder>`"
                .into(),
        );
    }
    if let Some(p) = pattern
        && let Err(e) = globset::Glob::new(p)
    {
        return Err(format!("`{p}` is not a valid file pattern: {e}"));
    }
    Ok(())
}
