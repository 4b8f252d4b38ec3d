//! The exports with a line per fixed run (runs CSV, JUnit XML) or per
//! session (sessions CSV) written a page at a time, as a stream of chunks:
//! a campaign of 100,000 runs is exported in the memory of one page, and
//! the first bytes leave before the last run is read.

use super::csv::{runs_csv_header, runs_csv_rows, sessions_csv_part};
use super::junit::JunitXml;
use super::{ExportFormat, steps};
use crate::domain::ids::{CampaignId, SessionId};
use crate::error::{Error, Result};
use crate::i18n::Lang;
use crate::platform::Platform;
use futures::stream::{self, BoxStream, StreamExt};
use std::sync::Arc;

/// Runs (or sessions) read per page.
pub const EXPORT_PAGE: u32 = 1000;

/// An export as chunks of text, in order.
pub type ExportChunks = BoxStream<'static, Result<String>>;

/// What a page of runs becomes.
enum RunRows {
    Csv { with_tools: bool },
    Junit(Box<JunitXml>),
}

/// Where the stream is, and what comes next.
enum Paged {
    /// Runs after the one in slot `after`.
    Runs {
        after: i64,
        rows: RunRows,
    },
    /// Sessions after the one that started at `after` (ms, then id).
    Sessions {
        after: Option<(i64, SessionId)>,
    },
    Done,
}

struct Cursor {
    platform: Arc<Platform>,
    campaign_id: CampaignId,
    lang: Lang,
    page: u32,
    paged: Paged,
}

impl Platform {
    /// An export of a campaign as a stream of chunks. The runs CSV, JUnit
    /// and the sessions CSV are written a page at a time ([`EXPORT_PAGE`]);
    /// the report's formats are one chunk. What fails before the first
    /// chunk (an unknown campaign) is returned here; a later failure ends
    /// the stream with its error.
    pub async fn export_chunks(
        self: &Arc<Self>,
        campaign_id: CampaignId,
        format: ExportFormat,
        lang: Lang,
    ) -> Result<ExportChunks> {
        self.export_paged(campaign_id, format, lang, EXPORT_PAGE)
            .await
    }

    /// [`Platform::export_chunks`] with `page` runs or sessions per page.
    pub async fn export_paged(
        self: &Arc<Self>,
        campaign_id: CampaignId,
        format: ExportFormat,
        lang: Lang,
        page: u32,
    ) -> Result<ExportChunks> {
        let runs = |rows| Paged::Runs {
            after: i64::MIN,
            rows,
        };
        let (head, paged) = match format {
            ExportFormat::Csv => {
                self.get_campaign(campaign_id).await?;
                let with_tools = self.store.campaign_has_steps(campaign_id).await?;
                (
                    runs_csv_header(with_tools),
                    runs(RunRows::Csv { with_tools }),
                )
            }
            ExportFormat::Junit => {
                let report = self.campaign_report(campaign_id).await?;
                let f = &report.fixed;
                let tests = (f.runs_finished + f.runs_skipped) as usize;
                let mut xml = JunitXml::start(&report, tests, f.runs_skipped as usize, lang);
                (xml.take(), runs(RunRows::Junit(Box::new(xml))))
            }
            ExportFormat::SessionsCsv => {
                self.get_campaign(campaign_id).await?;
                let head = sessions_csv_part(&[], lang, true);
                (head, Paged::Sessions { after: None })
            }
            ExportFormat::Json | ExportFormat::Md => {
                let whole = match format {
                    ExportFormat::Json => self.export_json(campaign_id, lang).await?,
                    _ => self.export_markdown(campaign_id, lang).await?,
                };
                return Ok(stream::once(async { Ok(whole) }).boxed());
            }
        };
        let cursor = Cursor {
            platform: self.clone(),
            campaign_id,
            lang,
            page: page.max(1),
            paged,
        };
        let pages = stream::try_unfold(cursor, |mut c| async move {
            let chunk = c.next_chunk().await?;
            Ok::<_, Error>(chunk.map(|chunk| (chunk, c)))
        });
        Ok(stream::once(async { Ok(head) }).chain(pages).boxed())
    }
}

impl Cursor {
    /// The next page's chunk (the closing of the XML after the last), or
    /// `None` once everything was written.
    async fn next_chunk(&mut self) -> Result<Option<String>> {
        let store = &self.platform.store;
        let (id, lang, page) = (self.campaign_id, self.lang, self.page);
        let (chunk, next) = match std::mem::replace(&mut self.paged, Paged::Done) {
            Paged::Done => return Ok(None),
            Paged::Sessions { after } => {
                let sessions = store.campaign_sessions_after(id, after, page).await?;
                let next = match sessions.last() {
                    Some(s) => Paged::Sessions {
                        after: Some((crate::clock::to_ms(s.started_at), s.id)),
                    },
                    None => Paged::Done,
                };
                (sessions_csv_part(&sessions, lang, false), next)
            }
            Paged::Runs { after, mut rows } => {
                let runs = store.campaign_runs_after(id, after, page).await?;
                let Some(last) = runs.last().map(|r| i64::from(r.seq)) else {
                    let end = match rows {
                        RunRows::Junit(xml) => xml.finish(),
                        RunRows::Csv { .. } => String::new(),
                    };
                    return Ok(Some(end));
                };
                let chunk = match &mut rows {
                    RunRows::Csv { with_tools: true } => {
                        let steps = store.campaign_steps_between(id, after, last).await?;
                        runs_csv_rows(&runs, &steps::tools_by_run(steps), true, lang)
                    }
                    RunRows::Csv { with_tools: false } => {
                        runs_csv_rows(&runs, &Default::default(), false, lang)
                    }
                    RunRows::Junit(xml) => {
                        xml.cases(&runs);
                        xml.take()
                    }
                };
                (chunk, Paged::Runs { after: last, rows })
            }
        };
        self.paged = next;
        Ok(Some(chunk))
    }
}
