//! The JUnit XML export, for CI systems that show test results.

use super::*;

/// Fixed-scenario runs as JUnit XML (one test case per run), for CI.
/// The check details are in `lang`.
pub fn junit(
    report: &CampaignReport,
    runs: &[crate::fixed::Run],
    lang: crate::i18n::Lang,
) -> String {
    use quick_xml::Writer;
    use quick_xml::events::{BytesDecl, BytesText, Event};
    let f = &report.fixed;
    let judged: Vec<&crate::fixed::Run> = runs.iter().filter(|r| r.status == "done").collect();
    let skipped = judged
        .iter()
        .filter(|r| r.verdict == Some(crate::fixed::Verdict::Skipped))
        .count();
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let _ = w
        .create_element("testsuites")
        .with_attribute(("name", report.campaign.name.as_str()))
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attributes([
                    (
                        "name",
                        format!("{} fixed scenarios", report.campaign.name).as_str(),
                    ),
                    ("tests", judged.len().to_string().as_str()),
                    ("failures", f.failed.to_string().as_str()),
                    ("errors", f.errors.to_string().as_str()),
                    ("skipped", skipped.to_string().as_str()),
                    (
                        "timestamp",
                        report.campaign.window_start.to_rfc3339().as_str(),
                    ),
                ])
                .write_inner_content(|w| {
                    for r in &judged {
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
                                let message =
                                    failed.first().cloned().unwrap_or_else(|| "failed".into());
                                case.write_inner_content(|w| {
                                    w.create_element("failure")
                                        .with_attributes([
                                            ("message", message.as_str()),
                                            ("type", "check"),
                                        ])
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
                                        .with_attributes([
                                            ("message", reason.as_str()),
                                            ("type", "run_error"),
                                        ])
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
                    }
                    Ok(())
                })?;
            Ok(())
        });
    String::from_utf8(w.into_inner()).unwrap_or_default()
}
