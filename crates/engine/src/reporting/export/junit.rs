//! The JUnit XML export, for CI systems that show test results.

use super::*;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

/// Fixed-scenario runs as JUnit XML (one test case per run), for CI.
/// The check details are in `lang`.
pub fn junit(
    report: &CampaignReport,
    runs: &[crate::fixed::Run],
    lang: crate::i18n::Lang,
) -> String {
    let judged = runs.iter().filter(|r| r.status == "done");
    let skipped = judged
        .clone()
        .filter(|r| r.verdict == Some(crate::fixed::Verdict::Skipped))
        .count();
    let mut xml = JunitXml::start(report, judged.count(), skipped, lang);
    xml.cases(runs);
    xml.finish()
}

/// JUnit XML written a page of runs at a time: [`JunitXml::take`] hands
/// over what was written so far, so that a campaign of any size is
/// exported in bounded memory.
pub struct JunitXml {
    w: Writer<Vec<u8>>,
    lang: crate::i18n::Lang,
}

impl JunitXml {
    /// The declaration and the opening of the campaign's test suite, of
    /// `tests` judged runs, `skipped` of them skipped.
    pub fn start(
        report: &CampaignReport,
        tests: usize,
        skipped: usize,
        lang: crate::i18n::Lang,
    ) -> Self {
        let f = &report.fixed;
        let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
        let suites = BytesStart::new("testsuites")
            .with_attributes([("name", report.campaign.name.as_str())]);
        let suite_name = format!("{} fixed scenarios", report.campaign.name);
        let suite = BytesStart::new("testsuite").with_attributes([
            ("name", suite_name.as_str()),
            ("tests", tests.to_string().as_str()),
            ("failures", f.failed.to_string().as_str()),
            ("errors", f.errors.to_string().as_str()),
            ("skipped", skipped.to_string().as_str()),
            (
                "timestamp",
                report.campaign.window_start.to_rfc3339().as_str(),
            ),
        ]);
        // Writing into a Vec cannot fail.
        let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        let _ = w.write_event(Event::Start(suites));
        let _ = w.write_event(Event::Start(suite));
        Self { w, lang }
    }

    /// A test case for each judged run of `runs`.
    pub fn cases(&mut self, runs: &[crate::fixed::Run]) {
        for r in runs.iter().filter(|r| r.status == "done") {
            let _ = case(&mut self.w, r, self.lang);
        }
    }

    /// What was written since the last take.
    pub fn take(&mut self) -> String {
        String::from_utf8(std::mem::take(self.w.get_mut())).unwrap_or_default()
    }

    /// Closes the suite; the rest of the text.
    pub fn finish(mut self) -> String {
        let _ = self.w.write_event(Event::End(BytesEnd::new("testsuite")));
        let _ = self.w.write_event(Event::End(BytesEnd::new("testsuites")));
        self.take()
    }
}

/// One run's test case.
fn case(
    w: &mut Writer<Vec<u8>>,
    r: &crate::fixed::Run,
    lang: crate::i18n::Lang,
) -> std::io::Result<()> {
    let m = r.metrics.clone().unwrap_or_default();
    let name = format!("{} #{}", r.scenario_id, r.seq);
    let time = format!("{:.3}", m.latency_ms_total as f64 / 1000.0);
    let case = w.create_element("testcase").with_attributes([
        ("classname", r.scenario_id.as_str()),
        ("name", name.as_str()),
        ("time", time.as_str()),
    ]);
    match r.verdict {
        Some(crate::fixed::Verdict::Passed) | None => {
            case.write_empty()?;
        }
        Some(crate::fixed::Verdict::Failed) => {
            let failed: Vec<String> = r
                .check_results
                .iter()
                .filter(|c| !c.passed)
                .map(|c| super::check_line(c, lang))
                .collect();
            let message = failed.first().cloned().unwrap_or_else(|| "failed".into());
            case.write_inner_content(|w| {
                w.create_element("failure")
                    .with_attributes([("message", message.as_str()), ("type", "check")])
                    .write_text_content(BytesText::new(&failed.join("\n")))?;
                Ok(())
            })?;
        }
        Some(crate::fixed::Verdict::Error) => {
            let reason = r
                .error
                .as_ref()
                .map_or_else(|| "error".into(), |e| e.text().render(lang));
            case.write_inner_content(|w| {
                w.create_element("error")
                    .with_attributes([("message", reason.as_str()), ("type", "run_error")])
                    .write_empty()?;
                Ok(())
            })?;
        }
        Some(crate::fixed::Verdict::Skipped) => {
            case.write_inner_content(|w| {
                w.create_element("skipped")
                    .with_attribute(("message", "window ended before the run"))
                    .write_empty()?;
                Ok(())
            })?;
        }
    }
    Ok(())
}
