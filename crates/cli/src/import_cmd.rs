//! `agenteval import`: production conversations from OpenTelemetry traces
//! (the GenAI conventions) into a data folder, and what they become: a
//! fixed scenario to review, seed material, coverage in the report.

use crate::{data_dir_or_default, lang, open, runtime, user_error};
use agenteval_engine::msg;
use agenteval_engine::traces::{Encoding, ImportRequest, ImportSummary, ImportedQuery, Redactor};
use anyhow::Context;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum ImportCommand {
    /// Reads OTLP/JSON traces (a collector's file exporter output: one export a line, or one document) and keeps the conversations they hold; a line or span that cannot be read is named and skipped.
    #[command(after_help = "Conversations are rebuilt from GenAI spans \
        (gen_ai.input.messages / gen_ai.output.messages, or the older gen_ai.*.message events), \
        grouped by gen_ai.conversation.id (or session.id), else by trace; a conversation imported \
        again, or continued in a later file, is extended, not doubled. --redact replaces e-mail \
        addresses, phone numbers and ids with [email], [phone], [id] before anything is kept.")]
    Otlp {
        /// OTLP/JSON files (`-` for standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Replace e-mail addresses, phone numbers and ids before anything is kept.
        #[arg(long)]
        redact: bool,
        /// A pattern of your own to replace, NAME=REGEX (matches become [NAME]); repeatable, implies nothing else.
        #[arg(long = "redact-pattern", value_name = "NAME=REGEX")]
        redact_patterns: Vec<String>,
        /// The target whose production these are (its id): the report's coverage grid places them.
        #[arg(long)]
        target: Option<uuid::Uuid>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Lists the imported conversations, newest first: id, when, user turns, the first request.
    List {
        /// Only those of this target.
        #[arg(long)]
        target: Option<uuid::Uuid>,
        /// Only those containing these words.
        #[arg(long)]
        text: Option<String>,
        /// Data folder (default: the app's data folder).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Drafts a fixed scenario from an imported conversation and prints its pack file (YAML); --save keeps it among your packs.
    Draft {
        /// The imported conversation's id (see `agenteval import list`).
        id: uuid::Uuid,
        /// The pack to put it in (default `production`).
        #[arg(long)]
        pack: Option<String>,
        /// Save it among your packs (`<data-dir>/scenarios/<pack>/`), checked to load.
        #[arg(long)]
        save: bool,
        /// Data folder (default: the app's data folder).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Proposes personas and goals from imported conversations and prints them as a seed set (JSON), each with its conversations and traces as lineage: by the analyst model when one is configured (`AGENTEVAL_ANALYST_*`), else by rules.
    Seeds {
        /// Imported conversations' ids.
        #[arg(required = true)]
        ids: Vec<uuid::Uuid>,
        /// Data folder (default: the app's data folder).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
}

fn redactor(redact: bool, patterns: &[String]) -> anyhow::Result<Redactor> {
    let mut r = if redact {
        Redactor::built_in()
    } else {
        Redactor::none()
    };
    for p in patterns {
        r = r
            .with_pattern(p)
            .map_err(|e| anyhow::anyhow!("--redact-pattern {p}: {e}"))?;
    }
    Ok(r)
}

fn read(file: &PathBuf) -> anyhow::Result<(String, Vec<u8>)> {
    if file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        return Ok(("stdin".into(), bytes));
    }
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok((name, bytes))
}

/// The summary in the reader's language.
fn print_summary(source: &str, s: &ImportSummary) {
    let l = lang();
    println!(
        "{source}: {}",
        msg!(
            "import-summary",
            conversations = s.conversations,
            user_turns = s.user_turns,
            messages = s.messages,
            spans = s.spans
        )
        .render(l)
    );
    if s.redacted.is_empty() {
        println!("  {}", msg!("import-redacted-none").render(l));
    } else {
        let counts: Vec<String> = s
            .redacted
            .iter()
            .map(|(k, n)| format!("[{k}] ×{n}"))
            .collect();
        println!(
            "  {}",
            msg!("import-redacted", counts = counts.join(", ")).render(l)
        );
    }
    if !s.problems.is_empty() {
        println!(
            "  {}",
            msg!("import-problems", problems = s.problems.len()).render(l)
        );
        for p in &s.problems {
            println!("    {}", p.msg.render(l));
        }
    }
}

pub fn run(command: ImportCommand) -> anyhow::Result<()> {
    match command {
        ImportCommand::Otlp {
            files,
            redact,
            redact_patterns,
            target,
            json,
            data_dir,
        } => {
            let redactor = redactor(redact, &redact_patterns)?;
            let data_dir = data_dir_or_default(data_dir)?;
            let mut unreadable = 0;
            runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                for file in &files {
                    let (source, bytes) = read(file)?;
                    let request = ImportRequest {
                        source: source.clone(),
                        encoding: Encoding::Json,
                        target_id: target.map(agenteval_engine::TargetId),
                        redactor: redactor.clone(),
                    };
                    let summary = platform
                        .import_traces(&bytes, request)
                        .await
                        .map_err(user_error)?;
                    if summary.conversations == 0 && !summary.problems.is_empty() {
                        unreadable += 1;
                    }
                    if json {
                        println!("{}", serde_json::to_string(&summary)?);
                    } else {
                        print_summary(&source, &summary);
                    }
                }
                anyhow::Ok(())
            })?;
            if unreadable > 0 {
                anyhow::bail!("{unreadable} file(s) held no conversation that could be read");
            }
        }
        ImportCommand::List {
            target,
            text,
            data_dir,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let page = runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                platform
                    .imported_conversations(ImportedQuery {
                        target_id: target.map(agenteval_engine::TargetId),
                        text,
                        offset: None,
                        limit: Some(500),
                    })
                    .await
                    .map_err(user_error)
            })?;
            for c in &page.conversations {
                println!(
                    "{}  {}  {:>3} turns  {}",
                    c.id,
                    c.imported_at.format("%Y-%m-%d %H:%M"),
                    c.user_turns,
                    c.first_user
                );
            }
            eprintln!(
                "{} of {} imported conversations",
                page.conversations.len(),
                page.total
            );
        }
        ImportCommand::Draft {
            id,
            pack,
            save,
            data_dir,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                let draft = platform
                    .draft_from_conversation(id, pack, lang())
                    .await
                    .map_err(user_error)?;
                print!("{}", draft.yaml);
                if save {
                    let saved = platform
                        .save_scenario_file(
                            agenteval_engine::scenario::regression::SaveScenarioFile {
                                pack: draft.pack.clone(),
                                file_name: draft.file_name.clone(),
                                yaml: draft.yaml.clone(),
                            },
                        )
                        .await
                        .map_err(user_error)?;
                    eprintln!(
                        "saved {} to {}",
                        saved
                            .iter()
                            .map(|s| s.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        data_dir
                            .join("scenarios")
                            .join(&draft.pack)
                            .join(&draft.file_name)
                            .display()
                    );
                }
                anyhow::Ok(())
            })?;
        }
        ImportCommand::Seeds { ids, data_dir } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let proposal = runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                platform
                    .seeds_from_conversations(&ids, lang())
                    .await
                    .map_err(user_error)
            })?;
            if let Some(problem) = &proposal.analyst_problem {
                eprintln!("{}", problem.render(lang()));
            }
            println!("{}", serde_json::to_string_pretty(&proposal.seed_set)?);
        }
    }
    Ok(())
}
