//! Writes the office pack's workspaces: the real files seed 002's twelve
//! tasks are played over (`scenarios/office_agent/workspaces/`).
//!
//! ```text
//! cargo run -p agenteval-engine --example office_fixtures -- scenarios/office_agent/workspaces
//! ```
//!
//! Every file is written from the data below, the same bytes each time (no
//! clock is read), so the committed files can be checked by running this
//! again. The figures the scenarios expect are computed from the same data
//! in `tests` at the end (top 3 regions, quarterly sums, late employees).

use docx_rs::{Docx, Paragraph, Run, RunFonts, Style, StyleType};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, Formula, Workbook, Worksheet};
use std::error::Error;
use std::fs;
use std::path::Path;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const REGIONS: [&str; 5] = ["华东", "华南", "华北", "西南", "东北"];
const PRODUCTS: [&str; 2] = ["智能音箱", "无线耳机"];
const QUARTERS: [&str; 4] = ["Q1", "Q2", "Q3", "Q4"];
/// 销售额 (万元) by region, product, quarter. 华东 leads on the total, 西南
/// has the single largest row (a `max` instead of a `sum` ranks it first).
const SALES: [[[u32; 4]; 2]; 5] = [
    [[320, 340, 365, 410], [210, 225, 240, 268]],
    [[300, 318, 342, 376], [205, 219, 236, 254]],
    [[260, 275, 290, 318], [180, 188, 204, 226]],
    [[140, 150, 165, 460], [120, 128, 135, 150]],
    [[120, 126, 131, 140], [95, 99, 104, 110]],
];

/// 产品, 型号, 单价 (元), 库存.
const PRICES: [(&str, &str, u32, u32); 8] = [
    ("智能音箱 Mini", "SP-100", 199, 320),
    ("智能音箱 Pro", "SP-300", 599, 150),
    ("无线耳机 Lite", "EB-10", 149, 500),
    ("无线耳机 Max", "EB-50", 899, 80),
    ("智能手表 S", "SW-2", 1299, 60),
    ("智能手表 Ultra", "SW-5", 2499, 25),
    ("蓝牙键盘", "KB-7", 269, 210),
    ("便携充电宝", "PB-20", 129, 640),
];

const EMPLOYEES: [(&str, &str); 8] = [
    ("张伟", "市场部"),
    ("王芳", "研发部"),
    ("李娜", "测试部"),
    ("刘洋", "研发部"),
    ("陈静", "设计部"),
    ("杨磊", "运维部"),
    ("赵敏", "市场部"),
    ("黄强", "测试部"),
];
/// Two working weeks of March 2025.
const DAYS: [&str; 10] = [
    "2025-03-03",
    "2025-03-04",
    "2025-03-05",
    "2025-03-06",
    "2025-03-07",
    "2025-03-10",
    "2025-03-11",
    "2025-03-12",
    "2025-03-13",
    "2025-03-14",
];
/// The days (indexes into `DAYS`) each employee came after 09:00. 王芳 and
/// 刘洋 are late 3 and 4 days in a row; 杨磊 is late 3 times, never twice
/// in a row (the trap); 陈静 twice in a row; 赵敏 once.
const LATE: [&[usize]; 8] = [
    &[],
    &[1, 2, 3],
    &[],
    &[5, 6, 7, 8],
    &[7, 8],
    &[0, 2, 4],
    &[9],
    &[],
];

fn main() -> Result<()> {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: office_fixtures <out dir>")?;
    let out = Path::new(&out);
    sales(&out.join("sales"))?;
    prices(&out.join("prices"))?;
    attendance(&out.join("attendance"))?;
    weekly(&out.join("weekly"))?;
    contract(&out.join("contract"))?;
    plans(&out.join("plans"))?;
    notes(&out.join("notes"))?;
    println!("wrote the office workspaces under {}", out.display());
    Ok(())
}

fn workbook() -> Result<Workbook> {
    let mut book = Workbook::new();
    let created = ExcelDateTime::from_ymd(2025, 3, 17)?.and_hms(9, 0, 0)?;
    book.set_properties(
        &DocProperties::new()
            .set_author("AgentEval")
            .set_creation_datetime(&created),
    );
    Ok(book)
}

fn save(mut book: Workbook, dir: &Path, name: &str) -> Result<()> {
    fs::create_dir_all(dir)?;
    book.save(dir.join(name))?;
    Ok(())
}

fn header(sheet: &mut Worksheet, names: &[&str]) -> Result<()> {
    let bold = Format::new().set_bold();
    for (c, name) in names.iter().enumerate() {
        sheet.write_string_with_format(0, c as u16, *name, &bold)?;
    }
    Ok(())
}

/// `销售数据.xlsx`: sheet `明细` (40 rows, 华东's region cells merged into
/// one, a `合计` row whose SUM formula carries its cached result) and sheet
/// `季度汇总` (SUMIF formulas with their results).
fn sales(dir: &Path) -> Result<()> {
    let mut book = workbook()?;
    let detail = book.add_worksheet().set_name("明细")?;
    header(detail, &["区域", "季度", "产品", "销售额"])?;
    let mut row = 1u32;
    let mut total = 0;
    for (r, region) in REGIONS.iter().enumerate() {
        let first = row;
        for (q, quarter) in QUARTERS.iter().enumerate() {
            for (p, product) in PRODUCTS.iter().enumerate() {
                if r != 0 {
                    detail.write_string(row, 0, *region)?;
                }
                detail.write_string(row, 1, *quarter)?;
                detail.write_string(row, 2, *product)?;
                detail.write_number(row, 3, SALES[r][p][q])?;
                total += SALES[r][p][q];
                row += 1;
            }
        }
        if r == 0 {
            let centred = Format::new().set_align(rust_xlsxwriter::FormatAlign::VerticalCenter);
            detail.merge_range(first, 0, row - 1, 0, region, &centred)?;
        }
    }
    detail.write_string(row, 0, "合计")?;
    detail.write_formula(
        row,
        3,
        Formula::new(format!("=SUM(D2:D{row})")).set_result(total.to_string()),
    )?;
    let summary = book.add_worksheet().set_name("季度汇总")?;
    header(summary, &["季度", "销售额"])?;
    for (q, quarter) in QUARTERS.iter().enumerate() {
        let sum: u32 = SALES.iter().flatten().map(|p| p[q]).sum();
        let r = q as u32 + 1;
        summary.write_string(r, 0, *quarter)?;
        summary.write_formula(
            r,
            1,
            Formula::new(format!("=SUMIF(明细!B2:B{row},A{},明细!D2:D{row})", r + 1))
                .set_result(sum.to_string()),
        )?;
    }
    save(book, dir, "销售数据.xlsx")
}

/// `产品价格表.xlsx`: 8 products with model, unit price and stock.
fn prices(dir: &Path) -> Result<()> {
    let mut book = workbook()?;
    let sheet = book.add_worksheet().set_name("价格表")?;
    header(sheet, &["产品", "型号", "单价", "库存"])?;
    for (i, (product, model, price, stock)) in PRICES.iter().enumerate() {
        let r = i as u32 + 1;
        sheet.write_string(r, 0, *product)?;
        sheet.write_string(r, 1, *model)?;
        sheet.write_number(r, 2, *price)?;
        sheet.write_number(r, 3, *stock)?;
    }
    save(book, dir, "产品价格表.xlsx")
}

/// The sign-in time of an employee on a day: before 09:00 unless late.
fn sign_in(e: usize, d: usize) -> String {
    let minute = (e * 7 + d * 11) % 25;
    if LATE[e].contains(&d) {
        format!("09:{:02}", 5 + minute)
    } else {
        format!("08:{:02}", 30 + minute)
    }
}

/// `考勤记录.xlsx`: one row per employee and working day, dates and times as
/// text, 是否迟到 as 是 / 否.
fn attendance(dir: &Path) -> Result<()> {
    let mut book = workbook()?;
    let sheet = book.add_worksheet().set_name("考勤")?;
    header(sheet, &["员工", "部门", "日期", "签到时间", "是否迟到"])?;
    let mut r = 1u32;
    for (e, (name, dept)) in EMPLOYEES.iter().enumerate() {
        for (d, day) in DAYS.iter().enumerate() {
            sheet.write_string(r, 0, *name)?;
            sheet.write_string(r, 1, *dept)?;
            sheet.write_string(r, 2, *day)?;
            sheet.write_string(r, 3, sign_in(e, d))?;
            sheet.write_string(r, 4, if LATE[e].contains(&d) { "是" } else { "否" })?;
            r += 1;
        }
    }
    save(book, dir, "考勤记录.xlsx")
}

/// A .docx of headings (`# ` level 1, `## ` level 2) and paragraphs.
fn docx(path: &Path, lines: &[&str]) -> Result<()> {
    let fonts = RunFonts::new().east_asia("SimSun").ascii("Calibri");
    let mut doc = Docx::new()
        .default_fonts(fonts)
        .created_at("2025-03-17T09:00:00Z")
        .updated_at("2025-03-17T09:00:00Z")
        .add_style(
            Style::new("Heading1", StyleType::Paragraph)
                .name("heading 1")
                .outline_lvl(0)
                .size(32)
                .bold(),
        )
        .add_style(
            Style::new("Heading2", StyleType::Paragraph)
                .name("heading 2")
                .outline_lvl(1)
                .size(28)
                .bold(),
        );
    for line in lines {
        let (style, text) = if let Some(t) = line.strip_prefix("## ") {
            (Some("Heading2"), t)
        } else if let Some(t) = line.strip_prefix("# ") {
            (Some("Heading1"), t)
        } else {
            (None, *line)
        };
        let mut p = Paragraph::new().add_run(Run::new().add_text(text));
        if let Some(s) = style {
            p = p.style(s);
        }
        doc = doc.add_paragraph(p);
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut stored = std::io::Cursor::new(Vec::new());
    doc.pack(&mut stored)?;
    fs::write(path, deflated(stored.into_inner())?)?;
    Ok(())
}

/// The same archive with its parts deflated: docx-rs stores them as they
/// are, five times larger.
fn deflated(stored: Vec<u8>) -> Result<Vec<u8>> {
    use zip::write::SimpleFileOptions;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(stored))?;
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for i in 0..archive.len() {
        let mut part = archive.by_index(i)?;
        let name = part.name().to_string();
        if part.is_dir() {
            out.add_directory(name, options)?;
        } else {
            out.start_file(name, options)?;
            std::io::copy(&mut part, &mut out)?;
        }
    }
    Ok(out.finish()?.into_inner())
}

fn text(dir: &Path, name: &str, body: &str) -> Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join(name), body)?;
    Ok(())
}

/// Five departments' weekly reports in four formats, each with progress,
/// risks, next week's plan and a figure or two.
fn weekly(dir: &Path) -> Result<()> {
    text(dir, "市场部周报.md", MARKET)?;
    docx(&dir.join("研发部周报.docx"), &RND)?;
    text(dir, "测试部周报.md", QA)?;
    text(dir, "运维部周报.txt", OPS)?;
    text(dir, "设计部周报.md", DESIGN)
}

const MARKET: &str = "# 市场部周报（2025年3月第2周）

## 本周进展
- 完成新品发布会场地预订，预计到场嘉宾 200 人
- 社交媒体账号新增粉丝 1.2 万

## 风险
- 发布会物料供应商报价偏高，可能超出预算

## 下周计划
- 确定发布会议程并发出邀请函
";

const RND: [&str; 8] = [
    "# 研发部周报（2025年3月第2周）",
    "## 本周进展",
    "发布 v2.1 版本，修复缺陷 36 个",
    "完成支付模块重构",
    "## 风险",
    "第三方支付接口 4 月起变更，需要适配",
    "## 下周计划",
    "启动 v2.2 需求评审",
];

const QA: &str = "# 测试部周报（2025年3月第2周）

## 本周进展
- 完成 v2.1 回归测试，执行用例 480 条，发现缺陷 12 个

## 风险
- 测试环境不稳定，本周中断 2 次

## 下周计划
- 完成 v2.1 性能测试
";

const OPS: &str = "运维部周报（2025年3月第2周）

本周进展：
1. 完成核心数据库迁移，停机时间 25 分钟
2. 服务器资源利用率提升至 68%

风险：
1. 备份机房带宽不足

下周计划：
1. 上线新的监控告警规则
";

const DESIGN: &str = "# 设计部周报（2025年3月第2周）

## 本周进展
- 交付新版首页设计稿 3 套

## 风险
- 品牌色规范尚未定稿

## 下周计划
- 完成移动端适配稿
";

/// `采购合同.docx`: the seed's contract task reads a scanned PDF; the pack
/// reads this Word contract instead (parties, term, payment, penalty).
fn contract(dir: &Path) -> Result<()> {
    docx(&dir.join("采购合同.docx"), &CONTRACT)
}

const CONTRACT: [&str; 24] = [
    "# 采购合同",
    "合同编号：CG-2025-0318",
    "甲方（采购方）：上海星辰科技有限公司",
    "乙方（供应方）：杭州明远电子有限公司",
    "甲乙双方经友好协商，就甲方向乙方采购智能音箱事宜达成如下协议：",
    "## 第一条 采购内容",
    "乙方向甲方供应智能音箱（型号 SP-300）500 台，单价 680 元，合同总额 340,000 元（大写：叁拾肆万元整）。",
    "## 第二条 合同期限",
    "本合同自 2025年3月1日 起生效，至 2026年2月28日 止，期限一年。",
    "## 第三条 交货",
    "乙方应于 2025年4月15日 前将全部货物送至甲方指定仓库（上海市浦东新区）。",
    "## 第四条 付款方式",
    "甲方于合同签订后 10 个工作日内支付合同总额的 30% 作为预付款；货物验收合格后 30 日内支付剩余 70%。付款方式为银行转账。",
    "## 第五条 质量保证",
    "乙方提供 12 个月质保，质保期内非人为损坏免费维修或更换。",
    "## 第六条 违约责任",
    "乙方逾期交货的，每逾期一日按合同总额的 0.5% 向甲方支付违约金，违约金累计不超过合同总额的 10%。甲方逾期付款的，每逾期一日按未付金额的 0.05% 向乙方支付违约金。",
    "## 第七条 争议解决",
    "因本合同引起的争议，双方协商解决；协商不成的，提交甲方所在地人民法院诉讼解决。",
    "## 第八条 其他",
    "本合同一式两份，甲乙双方各执一份，具有同等法律效力。",
    "甲方（盖章）：上海星辰科技有限公司",
    "乙方（盖章）：杭州明远电子有限公司",
    "签订日期：2025年2月20日",
];

/// Two versions of a plan: v2 changes the budget, drops the media section
/// and adds a milestone.
fn plans(dir: &Path) -> Result<()> {
    text(dir, "方案_v1.md", &plan(1))?;
    text(dir, "方案_v2.md", &plan(2))
}

fn plan(version: u8) -> String {
    let v2 = version == 2;
    let budget = if v2 {
        "总预算 150 万元，其中线上投放 100 万元，线下活动 50 万元。"
    } else {
        "总预算 120 万元，其中线上投放 80 万元，线下活动 40 万元。"
    };
    let dealers = if v2 {
        "- 6 月 1 日：经销商大会\n"
    } else {
        ""
    };
    let media = if v2 {
        ""
    } else {
        "\n## 六、媒体合作\n与 3 家行业媒体合作发布新品评测。\n"
    };
    format!(
        "# 新品上市推广方案 v{version}

## 一、目标
三季度内新品销量达到 5 万台。

## 二、预算
{budget}

## 三、渠道
线上：电商平台、社交媒体；线下：商场快闪店。

## 四、里程碑
- 4 月 15 日：完成物料设计
- 5 月 10 日：线上投放启动
{dealers}- 6 月 30 日：首轮复盘

## 五、风险
供应链交付可能延迟。
{media}"
    )
}

/// `会议纪要.md`: meeting notes to export as PDF.
fn notes(dir: &Path) -> Result<()> {
    text(dir, "会议纪要.md", NOTES)
}

const NOTES: &str = "# 产品周会会议纪要

- 时间：2025年3月14日 14:00-15:30
- 地点：3 号会议室
- 参会人：张伟、王芳、李娜、刘洋

## 议题一：新品发布会筹备
市场部汇报场地已预订，预计到场嘉宾 200 人。

## 议题二：v2.1 版本质量
测试部发现缺陷 12 个，研发部承诺下周三前修复完毕。

## 决议
1. 发布会定于 4 月 18 日举行。
2. 下周五前完成全部缺陷修复。

## 待办
- 王芳：跟进缺陷修复进度
- 张伟：发出发布会邀请函
";

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures the office pack's scenarios expect, computed from the
    /// data the files are written from.
    #[test]
    fn the_expected_figures() {
        let by_region: Vec<u32> = SALES.iter().map(|r| r.iter().flatten().sum()).collect();
        assert_eq!(by_region, [2378, 2250, 1941, 1448, 925]);
        let by_quarter: Vec<u32> = (0..4)
            .map(|q| SALES.iter().flatten().map(|p| p[q]).sum())
            .collect();
        assert_eq!(by_quarter, [1950, 2068, 2212, 2712]);
        assert_eq!(by_region.iter().sum::<u32>(), 8942);
        let late: Vec<(&str, usize)> = EMPLOYEES
            .iter()
            .zip(LATE)
            .filter(|(_, l)| !l.is_empty())
            .map(|((n, _), l)| (*n, l.len()))
            .collect();
        assert_eq!(
            late,
            [
                ("王芳", 3),
                ("刘洋", 4),
                ("陈静", 2),
                ("杨磊", 3),
                ("赵敏", 1)
            ]
        );
        for (e, days) in LATE.iter().enumerate() {
            for d in 0..DAYS.len() {
                assert_eq!(sign_in(e, d).starts_with("09:"), days.contains(&d));
            }
        }
    }
}
