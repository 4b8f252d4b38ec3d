//! The office tools over real files: spreadsheets written with
//! rust_xlsxwriter, a .docx written with docx-rs, Markdown and CSV, in a
//! fresh folder per test; every figure checked against one computed here
//! from the rows the test wrote.

use agenteval_engine::Lang;
use agenteval_engine::domain::steps::{StepAnswer, ToolError};
use agenteval_engine::office::{
    OFFICE_TOOLS, Workspace, WorkspaceSource, is_office_tool, office_tool_specs,
};
use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

const REGIONS: [&str; 4] = ["华东", "华南", "华北", "西南"];

/// One record the test wrote: its region and its sales (None: empty).
struct Written {
    region: &'static str,
    sales: Option<f64>,
}

/// `销售` (区域, 产品, 销售额, 日期) and a second sheet `备注`. Row 2-4's
/// region is one merged cell, row 5's sales a formula with its cached
/// result, row 6's sales empty. Returns what each record holds.
fn write_sales(path: &Path, records: usize) -> Vec<Written> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("销售").unwrap();
    for (c, h) in ["区域", "产品", "销售额", "日期"].iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let mut written = Vec::new();
    for i in 0..records {
        let row = i as u32 + 1;
        let region = REGIONS[(i * 7 + i / 3) % 4];
        let mut sales = Some(((i * 37) % 1000) as f64 + 0.25 * (i % 4) as f64);
        match i {
            0 => {
                sheet
                    .merge_range(1, 0, 3, 0, "华东", &Format::new())
                    .unwrap();
            }
            1 | 2 => {}
            3 => {
                sheet
                    .write_formula(row, 2, Formula::new("=C2+C3").set_result("1234.5"))
                    .unwrap();
                sales = Some(1234.5);
            }
            4 => sales = None,
            _ => {}
        }
        let region = if i < 3 { "华东" } else { region };
        if i >= 3 {
            sheet.write_string(row, 0, region).unwrap();
        }
        sheet.write_string(row, 1, format!("P{}", i % 5)).unwrap();
        if let (Some(v), true) = (sales, i != 3) {
            sheet.write_number(row, 2, v).unwrap();
        }
        let day = ExcelDateTime::from_ymd(2024, 1 + (i % 12) as u8, 1 + (i % 28) as u8).unwrap();
        sheet
            .write_datetime_with_format(row, 3, &day, &date)
            .unwrap();
        written.push(Written { region, sales });
    }
    let notes = book.add_worksheet();
    notes.set_name("备注").unwrap();
    notes.write_string(0, 0, "说明").unwrap();
    book.save(path).unwrap();
    written
}

fn source_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, WorkspaceSource) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, bytes) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let source = WorkspaceSource::Dir(dir.path().to_path_buf());
    (dir, source)
}

fn sales_source(records: usize) -> (tempfile::TempDir, WorkspaceSource, Vec<Written>) {
    let (dir, source) = source_with(&[("notes.md", "# 会议纪要\n\n决定：下周发布。\n".as_bytes())]);
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    let written = write_sales(&dir.path().join("data/sales.xlsx"), records);
    (dir, source, written)
}

fn ok(w: &Workspace, tool: &str, args: Value) -> Value {
    match w.play(tool, &args).0 {
        StepAnswer::Result(v) => v,
        other => panic!("{tool} {args} failed: {other:?}"),
    }
}

fn err(w: &Workspace, tool: &str, args: Value) -> ToolError {
    match w.play(tool, &args).0 {
        StepAnswer::Error(e) => e,
        other => panic!("{tool} {args} should fail: {other:?}"),
    }
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64()
        .is_some_and(|a| (a - b).abs() <= 1e-6 * b.abs().max(1.0))
}

#[test]
fn data_query_sums_means_and_counts_match_the_rows_written() {
    let (_dir, source, written) = sales_source(200);
    let w = Workspace::copy_of(&source, Lang::Zh).unwrap();
    let r = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "group_by": ["区域"],
               "aggregations": {"销售额": ["sum", "avg", "count"]}}),
    );
    assert_eq!(r["query_result_id"], "q1");
    assert_eq!(
        r["columns"],
        json!(["区域", "销售额_sum", "销售额_avg", "销售额_count"])
    );
    // Expected, from the rows as written, groups in first-seen order.
    let mut order: Vec<&str> = Vec::new();
    let mut by: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for row in &written {
        if !order.contains(&row.region) {
            order.push(row.region);
        }
        let e = by.entry(row.region).or_default();
        if let Some(v) = row.sales {
            e.0 += v;
            e.1 += 1;
        }
    }
    let got: Vec<&str> = r["sample_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["区域"].as_str().unwrap())
        .collect();
    assert_eq!(
        got, order,
        "groups come in the order first seen; the merged cell fills rows 2-4 with 华东"
    );
    for o in r["sample_data"].as_array().unwrap() {
        let (sum, n) = by[o["区域"].as_str().unwrap()];
        assert!(close(&o["销售额_sum"], sum), "{o}: sum {sum}");
        assert!(close(&o["销售额_avg"], sum / n as f64), "{o}: avg");
        assert_eq!(o["销售额_count"], json!(n), "the empty cell is not counted");
    }
    let all = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "aggregations": {"销售额": "sum", "区域": "count"}}),
    );
    let total: f64 = written.iter().filter_map(|r| r.sales).sum();
    assert_eq!(
        all["total_rows"], 1,
        "aggregations without group_by give one row"
    );
    assert!(close(&all["sample_data"][0]["销售额_sum"], total));
    assert_eq!(
        all["sample_data"][0]["区域_count"], 200,
        "merged cells count as filled"
    );
    // The rows themselves: the formula's cached value, the date as ISO,
    // the empty cell as null.
    let rows = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "query_range": "A1:D7"}),
    );
    assert_eq!(rows["total_rows"], 6);
    assert_eq!(
        rows["sample_data"][1]["区域"], "华东",
        "merged area filled from its top-left"
    );
    assert_eq!(
        rows["sample_data"][3]["销售额"], 1234.5,
        "a formula reads as its cached result"
    );
    assert_eq!(rows["sample_data"][4]["销售额"], Value::Null);
    assert_eq!(rows["sample_data"][0]["日期"], "2024-01-01");
    // A filter, then an average.
    let f = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "filters": {"区域": "华南", "销售额": {">=": 500}},
               "aggregations": {"销售额": "avg"}}),
    );
    let picked: Vec<f64> = written
        .iter()
        .filter(|r| r.region == "华南")
        .filter_map(|r| r.sales)
        .filter(|v| *v >= 500.0)
        .collect();
    let mean = picked.iter().sum::<f64>() / picked.len() as f64;
    assert!(close(&f["sample_data"][0]["销售额_avg"], mean), "{f}");
}

#[test]
fn a_ten_thousand_row_sheet_returns_its_first_hundred_rows_and_all_its_sums() {
    let (_dir, source, written) = sales_source(10_000);
    let w = Workspace::copy_of(&source, Lang::En).unwrap();
    let r = ok(&w, "DATA_QUERY", json!({"file_path": "data/sales.xlsx"}));
    assert_eq!(r["rows_returned"], 100);
    assert_eq!(r["total_rows"], 10_000);
    assert_eq!(r["sample_data"].as_array().unwrap().len(), 100);
    let sums = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "sheet": "销售", "group_by": ["区域"], "aggregations": {"销售额": "sum"}}),
    );
    assert_eq!(sums["total_rows"], 4);
    for o in sums["sample_data"].as_array().unwrap() {
        let region = o["区域"].as_str().unwrap();
        let want: f64 = written
            .iter()
            .filter(|r| r.region == region)
            .filter_map(|r| r.sales)
            .sum();
        assert!(
            close(&o["销售额_sum"], want),
            "{region}: {} != {want}",
            o["销售额_sum"]
        );
    }
}

#[test]
fn a_csv_file_is_one_sheet() {
    let csv = "city,amount,note\nA,10,x\nB,2.5,\nA,7,y\n";
    let (_dir, source) = source_with(&[("t.csv", csv.as_bytes())]);
    let w = Workspace::copy_of(&source, Lang::En).unwrap();
    let r = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "t.csv", "group_by": ["city"], "aggregations": {"amount": "sum", "note": "count"}}),
    );
    assert_eq!(r["sheet"], "t");
    assert_eq!(
        r["sample_data"],
        json!([{"city": "A", "amount_sum": 17, "note_count": 2}, {"city": "B", "amount_sum": 2.5, "note_count": 0}])
    );
    let read = ok(&w, "FILE_READ", json!({"file_path": "t.csv"}));
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .contains("| city | amount | note |")
    );
}

#[test]
fn errors_say_what_is_wrong_and_what_to_do_in_both_languages() {
    let (_dir, source, _) = sales_source(20);
    let zh = Workspace::copy_of(&source, Lang::Zh).unwrap();
    let en = Workspace::copy_of(&source, Lang::En).unwrap();
    let missing = json!({"file_path": "resources/data/sales.xlsx"});
    let e = err(&zh, "DATA_QUERY", missing.clone());
    assert_eq!(e.code, "FILE_NOT_FOUND");
    assert_eq!(e.message, "文件 resources/data/sales.xlsx 不存在");
    assert_eq!(
        e.suggestion,
        "请在 file_path 参数中提供正确路径，或先调用 FILE_LIST 查看可用文件"
    );
    let e = err(&en, "FILE_READ", missing);
    assert_eq!(e.code, "FILE_NOT_FOUND");
    assert_eq!(e.message, "File resources/data/sales.xlsx does not exist");
    assert!(e.suggestion.contains("FILE_LIST"), "{}", e.suggestion);

    let e = err(
        &zh,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "sheet": "Sheet1"}),
    );
    assert_eq!(e.code, "SHEET_NOT_FOUND");
    assert!(
        e.suggestion.contains("销售") && e.suggestion.contains("备注"),
        "{}",
        e.suggestion
    );

    let e = err(
        &zh,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "query_range": "A0:F10"}),
    );
    assert_eq!(e.code, "INVALID_RANGE");
    assert!(e.suggestion.contains("行号从 1 开始"), "{}", e.suggestion);
    let e = err(
        &en,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "query_range": "A0:F10"}),
    );
    assert!(e.suggestion.contains("starting at 1"), "{}", e.suggestion);

    let e = err(
        &zh,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "group_by": ["城市"]}),
    );
    assert_eq!(e.code, "COLUMN_NOT_FOUND");
    assert!(
        e.suggestion.contains("区域") && e.suggestion.contains("销售额"),
        "{}",
        e.suggestion
    );

    for tool in ["FILE_READ", "DATA_QUERY", "DOC_EXPORT"] {
        let e = err(&zh, tool, json!({"file_path": "../x", "format": "pdf"}));
        assert_eq!(e.code, "INVALID_PATH", "{tool}");
    }
    assert_eq!(
        err(&zh, "FILE_LIST", json!({"directory": "/etc"})).code,
        "INVALID_PATH"
    );
    assert_eq!(
        err(
            &zh,
            "DOC_CREATE",
            json!({"file_path": "../out.md", "sections": []})
        )
        .code,
        "INVALID_PATH"
    );
    let e = err(
        &zh,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "aggregations": {"销售额": "median"}}),
    );
    assert_eq!(e.code, "INVALID_ARGUMENTS");
    assert_eq!(
        err(&zh, "DATA_QUERY", json!({"file_path": "notes.md"})).code,
        "UNSUPPORTED_FORMAT"
    );
    assert_eq!(
        err(&zh, "DATA_QUERY", json!({"file_path": 7})).code,
        "INVALID_ARGUMENTS"
    );
    assert_eq!(
        err(
            &zh,
            "DATA_VISUALIZE",
            json!({"query_result_id": "q9", "chart_type": "bar"})
        )
        .code,
        "QUERY_NOT_FOUND"
    );
    assert_eq!(
        err(
            &zh,
            "DOC_APPEND",
            json!({"target_id": "d9", "offset_type": "end", "content_spec": {"content": "x"}})
        )
        .code,
        "DOCUMENT_NOT_FOUND"
    );
    // A file that is not what its extension says: an error, not a panic.
    std::fs::write(zh.root().join("broken.xlsx"), b"not a zip").unwrap();
    assert_eq!(
        err(&zh, "DATA_QUERY", json!({"file_path": "broken.xlsx"})).code,
        "FILE_UNREADABLE"
    );
    assert_eq!(
        err(&zh, "FILE_READ", json!({"file_path": "broken.xlsx"})).code,
        "FILE_UNREADABLE"
    );
}

fn hash_every_file(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_source_folder_is_byte_identical_after_fifty_runs_that_wrote_documents() {
    let (dir, source, _) = sales_source(30);
    let before = hash_every_file(dir.path());
    let hash = source.content_hash().unwrap();
    let mut roots = Vec::new();
    for i in 0..50 {
        let w = Workspace::copy_of(&source, Lang::Zh).unwrap();
        roots.push(w.root().to_path_buf());
        let created = ok(
            &w,
            "DOC_CREATE",
            json!({"file_path": "notes.md", "sections": [{"title": format!("第{i}次"), "content": "覆盖源文件的同名文档"}]}),
        );
        let id = created["doc_id"].as_str().unwrap();
        ok(
            &w,
            "DOC_APPEND",
            json!({"target_id": id, "offset_type": "end", "content_spec": {"title": "结论", "content": "完成"}}),
        );
        ok(
            &w,
            "DOC_EXPORT",
            json!({"file_path": "notes.md", "format": "docx"}),
        );
        ok(
            &w,
            "DATA_QUERY",
            json!({"file_path": "data/sales.xlsx", "aggregations": {"销售额": "sum"}}),
        );
        std::fs::write(w.root().join("data/sales.xlsx"), b"changed in the copy").unwrap();
        assert!(w.root().join("notes.docx").exists());
    }
    assert_eq!(
        hash_every_file(dir.path()),
        before,
        "the pack's files are never changed"
    );
    assert_eq!(source.content_hash().unwrap(), hash);
    assert!(
        roots.iter().all(|r| !r.exists()),
        "each copy is removed when its workspace is dropped"
    );
    std::fs::write(dir.path().join("notes.md"), "changed").unwrap();
    assert_ne!(
        source.content_hash().unwrap(),
        hash,
        "the hash follows the content"
    );
}

#[test]
fn two_workspaces_of_one_source_do_not_see_each_others_documents() {
    let (_dir, source, _) = sales_source(10);
    let source = std::sync::Arc::new(source);
    let threads: Vec<_> = ["alpha", "beta"]
        .into_iter()
        .map(|name| {
            let source = source.clone();
            std::thread::spawn(move || {
                let w = Workspace::copy_of(&source, Lang::En).unwrap();
                for i in 0..20 {
                    ok(&w, "DOC_CREATE", json!({"file_path": format!("output/{name}-{i}.md"), "sections": [{"title": name}]}));
                }
                let files = ok(&w, "FILE_LIST", json!({"directory": "output"}));
                (name, files["files"].clone(), w.documents().len())
            })
        })
        .collect();
    for t in threads {
        let (name, files, docs) = t.join().unwrap();
        let files: Vec<&str> = files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert_eq!(files.len(), 20, "{name}: {files:?}");
        assert!(
            files
                .iter()
                .all(|f| f.starts_with(&format!("output/{name}-"))),
            "{name} sees only its own: {files:?}"
        );
        assert_eq!(docs, 20);
    }
}

#[test]
fn file_read_marks_headings_tables_and_paragraph_anchors() {
    use docx_rs::{Docx, Paragraph, Run, Style, StyleType, Table, TableCell, TableRow};
    let cell =
        |t: &str| TableCell::new().add_paragraph(Paragraph::new().add_run(Run::new().add_text(t)));
    let mut docx_bytes = std::io::Cursor::new(Vec::new());
    Docx::new()
        .add_style(Style::new("Heading1", StyleType::Paragraph).name("Heading 1"))
        .add_paragraph(
            Paragraph::new()
                .add_run(Run::new().add_text("季度总结"))
                .style("Heading1"),
        )
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("本季度销售增长。")))
        .add_table(Table::new(vec![
            TableRow::new(vec![cell("区域"), cell("销售额")]),
            TableRow::new(vec![cell("华东"), cell("120")]),
        ]))
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("下季度继续。")))
        .build()
        .pack(&mut docx_bytes)
        .unwrap();
    let (dir, source, _) = sales_source(30);
    std::fs::write(dir.path().join("report.docx"), docx_bytes.into_inner()).unwrap();
    let w = Workspace::copy_of(&source, Lang::Zh).unwrap();

    let docx = ok(&w, "FILE_READ", json!({"file_path": "report.docx"}));
    let text = docx["content"].as_str().unwrap();
    assert!(text.contains("# 季度总结"), "{text}");
    assert!(text.contains("[P2] 本季度销售增长。"), "{text}");
    assert!(
        text.contains("[表格 1]\n| 区域 | 销售额 |\n| --- | --- |\n| 华东 | 120 |"),
        "{text}"
    );
    assert!(text.contains("[P3] 下季度继续。"), "{text}");

    let xlsx = ok(&w, "FILE_READ", json!({"file_path": "data/sales.xlsx"}));
    assert_eq!(xlsx["pages"], 2, "a sheet is a page");
    let text = xlsx["content"].as_str().unwrap();
    assert!(text.contains("## Sheet: 销售 (31 行 × 4 列)"), "{text}");
    assert!(text.contains("| 区域 | 产品 | 销售额 | 日期 |"), "{text}");
    assert!(text.contains("| 华东 | P1 |"), "merged cell filled: {text}");
    assert!(text.contains("还有 10 行"), "20 rows shown of 30: {text}");
    assert!(text.contains("## Sheet: 备注"), "{text}");
    let second = ok(
        &w,
        "FILE_READ",
        json!({"file_path": "data/sales.xlsx", "start_page": 2}),
    );
    assert!(!second["content"].as_str().unwrap().contains("销售 ("));

    let md = ok(&w, "FILE_READ", json!({"file_path": "notes.md"}));
    assert_eq!(md["content"], "# 会议纪要\n\n决定：下周发布。");
    assert_eq!(
        err(
            &w,
            "FILE_READ",
            json!({"file_path": "notes.md", "start_page": 3})
        )
        .code,
        "INVALID_ARGUMENTS"
    );
}

#[test]
fn a_document_is_created_appended_and_exported_to_pdf() {
    let (_dir, source, _) = sales_source(40);
    let w = Workspace::copy_of(&source, Lang::Zh).unwrap();
    let (answer, doc) = w.play(
        "DOC_CREATE",
        &json!({"file_path": "output/周报.md", "sections": [
            {"title": "概述", "content": "本周销售稳定。"},
            {"title": "数据", "content": "见下表。"}]}),
    );
    let StepAnswer::Result(created) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(created["doc_id"], "d1");
    assert_eq!(
        created["anchors"],
        json!([{"id": "d1.s1", "title": "概述"}, {"id": "d1.s2", "title": "数据"}])
    );
    assert_eq!(doc.unwrap().path, "output/周报.md");

    let q = ok(
        &w,
        "DATA_QUERY",
        json!({"file_path": "data/sales.xlsx", "group_by": ["区域"], "aggregations": {"销售额": "sum"}}),
    );
    let chart = ok(
        &w,
        "DATA_VISUALIZE",
        json!({"query_result_id": q["query_result_id"], "chart_type": "bar", "title": "各区域销售额"}),
    );
    assert_eq!(chart["file_path"], "charts/c1.svg");
    assert!(
        std::fs::read_to_string(w.root().join("charts/c1.svg"))
            .unwrap()
            .starts_with("<svg")
    );
    ok(
        &w,
        "DOC_APPEND",
        json!({"target_id": "d1.s2", "offset_type": "end",
        "content_spec": {"table": [["区域", "销售额"], ["华东", 120]], "chart_id": "c1"}}),
    );
    let (answer, doc) = w.play(
        "DOC_APPEND",
        &json!({"target_id": "d1", "offset_type": "end",
        "content_spec": {"title": "结论", "content": "华东领先。"}}),
    );
    let StepAnswer::Result(appended) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(appended["anchor_id"], "d1.s4");
    let text = doc.unwrap().text;
    let order = [
        "# 概述",
        "# 数据",
        "| 区域 | 销售额 |",
        "![各区域销售额](../charts/c1.svg)",
        "# 结论",
        "华东领先。",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|s| text.find(s).unwrap_or_else(|| panic!("{s} in {text}")))
        .collect();
    assert!(
        at.windows(2).all(|p| p[0] < p[1]),
        "blocks in order: {text}"
    );
    assert_eq!(
        std::fs::read_to_string(w.root().join("output/周报.md")).unwrap(),
        text,
        "the file is the text"
    );

    let (answer, exported) = w.play(
        "DOC_EXPORT",
        &json!({"file_path": "output/周报.md", "format": "pdf"}),
    );
    let StepAnswer::Result(pdf) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(pdf["file_path"], "output/周报.pdf");
    let bytes = std::fs::read(w.root().join("output/周报.pdf")).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "a PDF");
    assert_eq!(pdf["bytes"], bytes.len());
    let exported = exported.unwrap();
    assert_eq!(exported.path, "output/周报.pdf");
    assert!(exported.text.contains("# 结论"));
    for format in ["docx", "html", "txt"] {
        let r = ok(
            &w,
            "DOC_EXPORT",
            json!({"file_path": "output/周报.md", "format": format}),
        );
        assert!(
            w.root().join(r["file_path"].as_str().unwrap()).exists(),
            "{format}"
        );
    }
    let read_back = ok(&w, "FILE_READ", json!({"file_path": "output/周报.docx"}));
    assert!(
        read_back["content"].as_str().unwrap().contains("# 结论"),
        "{read_back}"
    );

    let deck = ok(
        &w,
        "SLIDE_BUILD",
        json!({"deck_name": "周报", "slides": [
        {"title": "概述", "bullets": ["稳定"]}, {"title": "图表", "chart_id": "c1", "notes": "讲解"}]}),
    );
    assert_eq!(deck["file_path"], "output/周报.slides.md");
    let paths: Vec<String> = w.documents().into_iter().map(|d| d.path).collect();
    assert_eq!(
        paths,
        [
            "output/周报.docx",
            "output/周报.html",
            "output/周报.md",
            "output/周报.pdf",
            "output/周报.slides.md",
            "output/周报.txt"
        ]
    );
    assert_eq!(w.files_matching("output/*.pdf"), ["output/周报.pdf"]);
    assert_eq!(
        w.files_matching("*.md"),
        ["notes.md", "output/周报.md", "output/周报.slides.md"]
    );
    let wait = ok(&w, "CONTROL_WAIT", json!({"condition": "确认发送"}));
    assert_eq!(wait["status"], "waiting_for_user");
}

#[test]
fn the_specs_are_the_nine_tools_with_strict_schemas() {
    let all = office_tool_specs(None, Lang::Zh);
    let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, OFFICE_TOOLS);
    assert!(
        all.iter()
            .all(|s| s.parameters["type"] == "object" && s.parameters["required"].is_array())
    );
    assert!(all[2].description.contains("Excel"));
    let some = office_tool_specs(Some(&["DATA_QUERY".into(), "NOPE".into()]), Lang::En);
    assert_eq!(some.len(), 1);
    assert!(is_office_tool("FILE_LIST") && !is_office_tool("file_list"));
    for spec in &all {
        jsonschema::validator_for(&spec.parameters)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    }
}
