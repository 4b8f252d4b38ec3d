//! The exports with a line per fixed run (runs CSV, JUnit XML) written a
//! page of runs at a time, as a stream of chunks: a campaign of 100,000
//! runs is exported in the memory of one page, and the first bytes leave
//! before the last run is read.

use super::csv::{runs_csv_header, runs_csv_rows};
use super::junit::JunitXml;
use super::{ExportFormat, steps};
use crate::domain::ids::CampaignId;
use crate::error::{Error, Result};
use crate::i18n::Lang;
use crate::platform::Platform;
use futures::stream::{self, BoxStream, StreamExt};
use std::sync::Arc;

/// Runs read per page.
pub const EXPORT_PAGE: u32 = 1000;

/// An export as chunks of text, in order.
pub type ExportChunks = BoxStream<'static, Result<String>>;

/// What each page of runs becomes.
enum Paged {
    Csv {
        with_tools: bool,
    },
    /// The XML being written; taken when it is closed.
    Junit(Option<Box<JunitXml>>),
}

/// Where the stream is: after the run in slot `after`, or done.
struct Cursor {
    platform: Arc<Platform>,
    campaign_id: CampaignId,
    lang: Lang,
    paged: Paged,
    page: u32,
    after: Option<i64>,
}

impl Platform {
    /// An export of a campaign as a stream of chunks. The runs CSV and
    /// JUnit are written a page of runs at a time ([`EXPORT_PAGE`]); the
    /// other formats are one chunk. What fails before the first chunk (an
    /// unknown campaign) is returned here; a later failure ends the stream
    /// with its error.
    pub async fn export_chunks(
        self: &Arc<Self>,
        campaign_id: CampaignId,
        format: ExportFormat,
        lang: Lang,
    ) -> Result<ExportChunks> {
        self.export_paged(campaign_id, format, lang, EXPORT_PAGE)
            .await
    }

    /// [`Platform::export_chunks`] with `page` runs per page.
    pub async fn export_paged(
        self: &Arc<Self>,
        campaign_id: CampaignId,
        format: ExportFormat,
        lang: Lang,
        page: u32,
    ) -> Result<ExportChunks> {
        let (head, paged) = match format {
            ExportFormat::Csv => {
                self.get_campaign(campaign_id).await?;
                let with_tools = self.store.campaign_has_steps(campaign_id).await?;
                (runs_csv_header(with_tools), Paged::Csv { with_tools })
            }
            ExportFormat::Junit => {
                let report = self.campaign_report(campaign_id).await?;
                let f = &report.fixed;
                let tests = (f.runs_finished + f.runs_skipped) as usize;
                let mut xml = JunitXml::start(&report, tests, f.runs_skipped as usize, lang);
                (xml.take(), Paged::Junit(Some(Box::new(xml))))
            }
            ExportFormat::Json | ExportFormat::SessionsCsv | ExportFormat::Md => {
                let whole = match format {
                    ExportFormat::Json => self.export_json(campaign_id, lang).await?,
                    ExportFormat::SessionsCsv => {
                        self.export_sessions_csv(campaign_id, lang).await?
                    }
                    _ => self.export_markdown(campaign_id, lang).await?,
                };
                return Ok(stream::once(async { Ok(whole) }).boxed());
            }
        };
        let cursor = Cursor {
            platform: self.clone(),
            campaign_id,
            lang,
            paged,
            page: page.max(1),
            after: Some(i64::MIN),
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
        let Some(after) = self.after else {
            return Ok(None);
        };
        let store = &self.platform.store;
        let runs = store
            .campaign_runs_after(self.campaign_id, after, self.page)
            .await?;
        let Some(last) = runs.last().map(|r| i64::from(r.seq)) else {
            self.after = None;
            return Ok(Some(match &mut self.paged {
                Paged::Csv { .. } => String::new(),
                Paged::Junit(xml) => xml.take().map(|x| x.finish()).unwrap_or_default(),
            }));
        };
        self.after = Some(last);
        Ok(Some(match &mut self.paged {
            Paged::Csv { with_tools } => {
                let tools = if *with_tools {
                    steps::tools_by_run(
                        store
                            .campaign_steps_between(self.campaign_id, after, last)
                            .await?,
                    )
                } else {
                    Default::default()
                };
                runs_csv_rows(&runs, &tools, *with_tools, self.lang)
            }
            Paged::Junit(xml) => xml
                .as_mut()
                .map(|x| {
                    x.cases(&runs);
                    x.take()
                })
                .unwrap_or_default(),
        }))
    }
}
