//! Exports of a campaign report: the formats and the operation that writes
//! them (here), the Markdown report (`markdown.rs`), the CSV files
//! (`csv.rs`) and JUnit XML (`junit.rs`). Each is a pure function from
//! report data to text: the same report always renders to the same bytes.

use crate::domain::ids::{CampaignId, SessionId};
use crate::i18n::Lang;
use crate::report::{CampaignReport, Tally};
use crate::text::truncate;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

mod calibration;
mod csv;
mod exploration;
mod junit;
mod markdown;
mod paged;
mod steps;
mod tasks;

pub use csv::{
    runs_csv, runs_csv_header, runs_csv_rows, runs_csv_with_tools, sessions_csv, sessions_csv_part,
};
pub use exploration::{
    ALL_TRANSCRIPTS_UP_TO, MAX_FINDINGS, MAX_ISSUE_ROWS, linked_sessions, markdown_with_transcripts,
};
pub use junit::{JunitXml, junit};
pub use markdown::{code, escape_inline, markdown, pct};
pub use paged::{EXPORT_PAGE, ExportChunks};
pub use steps::{
    JsonExport, MAX_FAILED_RUNS_WITH_STEPS, RunSteps, TurnSteps, check_line, steps_appendix,
    turns_with_steps,
};
pub use tasks::tasks_table;

/// Every export the product offers, each regenerable from stored data.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown report with its appendices and session transcripts.
    Md,
    /// The report as served by the API.
    Json,
    /// Fixed runs, one row each.
    Csv,
    /// Exploration sessions, one row each.
    SessionsCsv,
    /// Fixed runs as JUnit XML test cases, for CI.
    Junit,
}

impl ExportFormat {
    /// Parses a format name as given on the command line or in a query.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Self::Md,
            "json" => Self::Json,
            "csv" | "runs_csv" | "runs-csv" => Self::Csv,
            "sessions_csv" | "sessions-csv" => Self::SessionsCsv,
            "junit" | "xml" => Self::Junit,
            _ => return None,
        })
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Md => "text/markdown; charset=utf-8",
            Self::Json => "application/json",
            Self::Csv | Self::SessionsCsv => "text/csv; charset=utf-8",
            Self::Junit => "application/xml",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Md => "md",
            Self::Json => "json",
            Self::Csv | Self::SessionsCsv => "csv",
            Self::Junit => "xml",
        }
    }
}

impl crate::platform::Platform {
    /// Renders an export of a campaign from stored data, as one text (see
    /// [`crate::platform::Platform::export_chunks`] for the same in
    /// chunks). The words of the report's own are in `lang`; in the JSON
    /// export every message carries its `text` in `lang` beside its key.
    pub async fn export_campaign(
        self: &std::sync::Arc<Self>,
        campaign_id: CampaignId,
        format: ExportFormat,
        lang: Lang,
    ) -> crate::Result<String> {
        use futures::TryStreamExt;
        self.export_chunks(campaign_id, format, lang)
            .await?
            .try_collect()
            .await
    }

    /// The report as served by the API, with the steps of failed runs.
    async fn export_json(&self, campaign_id: CampaignId, lang: Lang) -> crate::Result<String> {
        let report = self.campaign_report(campaign_id).await?;
        let failed_runs = self.failed_run_steps(campaign_id, &report).await?;
        let export = JsonExport {
            report: &report,
            failed_runs: &failed_runs,
        };
        Ok(crate::i18n::sync_scope(lang, || {
            serde_json::to_string_pretty(&export)
        })?)
    }

    /// The Markdown report with the transcripts its links lead to and the
    /// steps of failed runs.
    async fn export_markdown(&self, campaign_id: CampaignId, lang: Lang) -> crate::Result<String> {
        let mut report = self.campaign_report(campaign_id).await?;
        let ids: Vec<SessionId> = match &report.exploration {
            None => Vec::new(),
            Some(e) if e.sessions_total <= ALL_TRANSCRIPTS_UP_TO => self
                .list_sessions(campaign_id)
                .await?
                .into_iter()
                .map(|s| s.id)
                .collect(),
            // A large campaign: the transcripts its links lead to.
            Some(_) => linked_sessions(&markdown(&report, lang)),
        };
        let transcripts = self.session_transcripts(&ids).await?;
        let names = self
            .evidence_names(campaign_id, &[], &ids, &Default::default())
            .await?;
        report.evidence.merge(names);
        let failed_runs = self.failed_run_steps(campaign_id, &report).await?;
        let names = self
            .step_run_names(campaign_id, &report, &failed_runs)
            .await?;
        report.evidence.merge(names);
        let mut md = markdown_with_transcripts(&report, &transcripts, lang);
        steps_appendix(&mut md, &failed_runs, &report.evidence, lang);
        Ok(md)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_structure() {
        let nasty = "| a | b |\n# heading\n```code```<script>alert(1)</script> *x* [l](u)";
        let e = escape_inline(nasty);
        assert!(!e.contains('\n'), "escaped text stays on one line");
        assert!(!e.contains("<script>"), "raw HTML is neutralised");
        assert!(!e.contains("```"), "code fences cannot open");
        assert!(
            e.split("\\|").all(|part| !part.contains('|')),
            "every pipe is escaped"
        );
    }

    #[test]
    fn linked_sessions_are_found_once_in_order() {
        let a = SessionId(uuid::Uuid::from_u128(1));
        let b = SessionId(uuid::Uuid::from_u128(2));
        let names = crate::domain::evidence::EvidenceNames::default();
        let link = |id| super::exploration::session_link(&names, id, Some(2), Lang::Zh);
        let md = format!(
            "see {} and {} then {} and [bad](#session-nope)",
            link(b),
            link(a),
            link(b)
        );
        assert_eq!(super::linked_sessions(&md), vec![b, a]);
    }
}
