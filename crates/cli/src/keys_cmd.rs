//! `agenteval keys`: the named API keys of a data folder, for a server a
//! team shares (`agenteval serve` on the same folder reads them).

use crate::{data_dir_or_default, open, runtime, user_error};
use agenteval_engine::keys::{ApiKeyInfo, ApiKeyRole, CreateApiKey};
use chrono::{DateTime, Utc};
use clap::Subcommand;
use std::path::PathBuf;

/// Who the audit trail names for what this command does.
const ACTOR: &str = "cli";

#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Creates a named key with a role and prints it: the only time it is shown (only its hash is stored).
    #[command(after_help = "Roles:\n  \
        viewer  reads only: every GET of the API (reports, exports, live events)\n  \
        editor  everything in the API but managing keys\n  \
        admin   everything, the /api/keys routes included")]
    Create {
        /// The key's name, unique: 1-64 letters, digits, '.', '_' or '-' (named in the audit trail as key:NAME).
        #[arg(long)]
        name: String,
        /// What the key may do.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(ApiKeyRole::ALL.map(ApiKeyRole::as_str)))]
        role: String,
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Lists the keys: name, role, prefix, created, last used, revoked; never a key itself.
    List {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Revokes a key by name: the server refuses it (401) from then on.
    Revoke {
        /// The key's name.
        name: String,
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
}

pub fn run(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Create {
            name,
            role,
            data_dir,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let created = runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                platform
                    .create_api_key(CreateApiKey { name, role }, ACTOR)
                    .await
                    .map_err(user_error)
            })?;
            println!("{}", created.key);
            eprintln!(
                "created key {} with role {} (prefix {})",
                created.name, created.role, created.prefix
            );
            eprintln!(
                "The key is shown only once, now: keep it (only its hash is stored). \
                 Send it as X-API-Key."
            );
        }
        KeysCommand::List { data_dir } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let keys = runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                platform.list_api_keys().await.map_err(user_error)
            })?;
            if keys.is_empty() {
                println!(
                    "no keys (create one with `agenteval keys create --name NAME --role ROLE`)"
                );
            } else {
                print!("{}", table(&keys));
            }
        }
        KeysCommand::Revoke { name, data_dir } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let revoked = runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                platform
                    .revoke_api_key(&name, ACTOR)
                    .await
                    .map_err(user_error)
            })?;
            println!(
                "revoked key {} ({}) at {}",
                revoked.name,
                revoked.role,
                when(revoked.revoked_at, "")
            );
        }
    }
    Ok(())
}

/// A time as the table shows it, to the minute, or `none`.
fn when(at: Option<DateTime<Utc>>, none: &str) -> String {
    at.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| none.to_string())
}

/// The keys as an aligned table with a header line.
fn table(keys: &[ApiKeyInfo]) -> String {
    let mut rows = vec![[
        "NAME".to_string(),
        "ROLE".into(),
        "PREFIX".into(),
        "CREATED".into(),
        "LAST USED".into(),
        "REVOKED".into(),
    ]];
    for k in keys {
        rows.push([
            k.name.clone(),
            k.role.to_string(),
            k.prefix.clone(),
            when(Some(k.created_at), "-"),
            when(k.last_used_at, "never"),
            when(k.revoked_at, "-"),
        ]);
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}
