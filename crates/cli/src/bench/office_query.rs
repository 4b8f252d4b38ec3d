//! `bench office-query`: `DATA_QUERY` over a real 100,000-row `.xlsx`
//! through `Workspace::play`, as a run's agent would call it. The sheet is
//! written with rust_xlsxwriter in a temporary folder; the workspace is a
//! private copy of that folder. The first query parses the sheet (timed on
//! its own); the next `--queries` alternate a `group_by` + `sum` and a
//! filter + `avg`, each answer checked against the sums computed while the
//! rows were written.

use super::{Figure, ms, peak_rss_mb, percentile, print_figures};
use agenteval_engine::Lang;
use agenteval_engine::domain::steps::StepAnswer;
use agenteval_engine::office::{Workspace, WorkspaceSource};
use anyhow::Context;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Timed queries after the first.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub queries: u32,
    /// Records in the sheet (below its header).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..1_048_575))]
    pub rows: u32,
}

const REGIONS: [&str; 8] = [
    "华东", "华南", "华北", "华中", "西南", "西北", "东北", "港澳",
];

/// What the sheet holds, computed while writing it: each region's sum of
/// 销售额, and the sum and count of 销售额 where 区域 is 华东 and 数量 ≥ 50.
struct Expected {
    sums: HashMap<&'static str, f64>,
    filtered: (f64, u64),
}

fn write_sheet(path: &Path, rows: u32) -> anyhow::Result<Expected> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("销售明细")?;
    for (c, h) in ["区域", "产品", "销售额", "数量", "日期"]
        .iter()
        .enumerate()
    {
        sheet.write_string(0, c as u16, *h)?;
    }
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let mut expected = Expected {
        sums: HashMap::new(),
        filtered: (0.0, 0),
    };
    for i in 0..rows {
        let row = i + 1;
        let region = REGIONS[(i as usize * 7 + i as usize / 13) % REGIONS.len()];
        let sales = f64::from((i * 7919) % 100_000) / 100.0;
        let quantity = (i * 31) % 100;
        sheet.write_string(row, 0, region)?;
        sheet.write_string(row, 1, format!("产品{:03}", i % 250))?;
        sheet.write_number(row, 2, sales)?;
        sheet.write_number(row, 3, quantity)?;
        let day = ExcelDateTime::from_ymd(2025, 1 + (i % 12) as u8, 1 + (i % 28) as u8)?;
        sheet.write_datetime_with_format(row, 4, &day, &date)?;
        *expected.sums.entry(region).or_default() += sales;
        if region == "华东" && quantity >= 50 {
            expected.filtered.0 += sales;
            expected.filtered.1 += 1;
        }
    }
    book.save(path)?;
    Ok(expected)
}

fn play(w: &Workspace, args: &Value) -> anyhow::Result<Value> {
    match w.play("DATA_QUERY", args).0 {
        StepAnswer::Result(v) => Ok(v),
        other => anyhow::bail!("DATA_QUERY {args} failed: {other:?}"),
    }
}

fn close(got: &Value, want: f64) -> bool {
    got.as_f64()
        .is_some_and(|g| (g - want).abs() <= 1e-6 * want.abs().max(1.0))
}

/// Checks a query's answer against the sums of the rows as written.
fn check(answer: &Value, grouped: bool, expected: &Expected) -> anyhow::Result<()> {
    let rows = answer["sample_data"].as_array().context("sample_data")?;
    if grouped {
        anyhow::ensure!(rows.len() == REGIONS.len(), "{} groups", rows.len());
        for r in rows {
            let region = r["区域"].as_str().context("区域")?;
            let want = expected.sums[region];
            anyhow::ensure!(
                close(&r["销售额_sum"], want),
                "{region}: {} != {want}",
                r["销售额_sum"]
            );
        }
    } else {
        let (sum, n) = expected.filtered;
        let want = sum / n as f64;
        anyhow::ensure!(
            close(&rows[0]["销售额_avg"], want),
            "avg {} != {want}",
            rows[0]["销售额_avg"]
        );
    }
    Ok(())
}

pub fn run(o: Options) -> anyhow::Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("agenteval-bench-office-")
        .tempdir()?;
    println!(
        "bench office-query: {} DATA_QUERY calls over a {}-row .xlsx in {}",
        o.queries,
        o.rows,
        dir.path().display()
    );
    let started = Instant::now();
    let expected = write_sheet(&dir.path().join("sales.xlsx"), o.rows)?;
    let write_time = started.elapsed();
    let bytes = std::fs::metadata(dir.path().join("sales.xlsx"))?.len();
    // Resets VmHWM to the current RSS (Linux 4.0+): the peak is the queries'.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let started = Instant::now();
    let workspace = Workspace::copy_of(&WorkspaceSource::Dir(dir.path().to_path_buf()), Lang::Zh)?;
    let copy_time = started.elapsed();
    let grouped =
        json!({"file_path": "sales.xlsx", "group_by": ["区域"], "aggregations": {"销售额": "sum"}});
    let filtered = json!({"file_path": "sales.xlsx", "filters": {"区域": "华东", "数量": {">=": 50}},
                          "aggregations": {"销售额": "avg"}});
    let started = Instant::now();
    let first = play(&workspace, &grouped)?;
    let first_time = started.elapsed();
    check(&first, true, &expected)?;
    // Times of the group_by + sum queries, then of the filter + avg ones.
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    let started = Instant::now();
    for i in 0..o.queries {
        let is_grouped = i % 2 == 0;
        let args = if is_grouped { &grouped } else { &filtered };
        let t = Instant::now();
        let answer = play(&workspace, args)?;
        times[usize::from(!is_grouped)].push(t.elapsed());
        check(&answer, is_grouped, &expected)?;
    }
    let total = started.elapsed();
    let peak = peak_rss_mb().unwrap_or(0.0);
    let mut all: Vec<Duration> = times.concat();
    all.sort();
    for t in &mut times {
        t.sort();
    }
    print_figures(
        "office-query",
        &[
            Figure::new(
                "office_query_rows",
                f64::from(o.rows),
                "rows",
                "records in the sheet",
            ),
            Figure::new(
                "office_query_xlsx_mb",
                bytes as f64 / 1_048_576.0,
                "MB",
                "size of the .xlsx",
            ),
            Figure::new(
                "office_query_write_ms",
                ms(write_time),
                "ms",
                "writing the .xlsx (rust_xlsxwriter)",
            ),
            Figure::new(
                "office_query_copy_ms",
                ms(copy_time),
                "ms",
                "copying the workspace",
            ),
            Figure::new(
                "office_query_first_ms",
                ms(first_time),
                "ms",
                "first query (parses the sheet)",
            ),
            Figure::new(
                "office_query_qps",
                f64::from(o.queries) / total.as_secs_f64(),
                "queries/s",
                "later queries per second",
            ),
            Figure::new(
                "office_query_p50_ms",
                ms(percentile(&all, 50.0)),
                "ms",
                "later query p50",
            ),
            Figure::new(
                "office_query_p95_ms",
                ms(percentile(&all, 95.0)),
                "ms",
                "later query p95",
            ),
            Figure::new(
                "office_query_group_sum_p50_ms",
                ms(percentile(&times[0], 50.0)),
                "ms",
                "group_by + sum p50",
            ),
            Figure::new(
                "office_query_filter_avg_p50_ms",
                ms(percentile(&times[1], 50.0)),
                "ms",
                "filter + avg p50",
            ),
            Figure::new(
                "office_query_peak_rss_mb",
                peak,
                "MB",
                "peak RSS from the copy on",
            ),
        ],
    );
    Ok(())
}
