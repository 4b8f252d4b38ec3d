//! `DATA_VISUALIZE`: an SVG chart (bar, line or pie) of a query result's
//! first text column against its first numeric column, its first 50 rows.

use super::sheet::Cell;
use super::words::{Failure, invalid};
use serde_json::{Value, json};

/// Points a chart shows at most.
pub const MAX_POINTS: usize = 50;

const W: f64 = 640.0;
const H: f64 = 400.0;
const COLORS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Bar,
    Line,
    Pie,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind, Failure> {
        match s.trim().to_lowercase().as_str() {
            "bar" | "column" => Ok(Kind::Bar),
            "line" => Ok(Kind::Line),
            "pie" => Ok(Kind::Pie),
            other => Err(invalid(
                format!("chart_type {other}: use bar, line or pie"),
                format!("chart_type {other} 不受支持：请使用 bar、line 或 pie"),
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Bar => "bar",
            Kind::Line => "line",
            Kind::Pie => "pie",
        }
    }
}

/// The labels and values a chart plots.
pub(crate) fn points(
    columns: &[String],
    rows: &[Vec<Cell>],
) -> Result<Vec<(String, f64)>, Failure> {
    let kind_of = |c: usize, numeric: bool| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .find(|cell| !cell.is_empty())
            .is_some_and(|cell| cell.as_f64().is_some() == numeric)
    };
    let value = (0..columns.len())
        .find(|&c| kind_of(c, true))
        .ok_or_else(|| {
            invalid(
                "the query result has no numeric column to plot",
                "该查询结果没有可绘制的数值列",
            )
        })?;
    let label = (0..columns.len()).find(|&c| c != value && kind_of(c, false));
    Ok(rows
        .iter()
        .take(MAX_POINTS)
        .enumerate()
        .filter_map(|(i, r)| {
            let v = r.get(value)?.as_f64()?;
            let l = label.map_or((i + 1).to_string(), |c| {
                r.get(c).map(Cell::text).unwrap_or_default()
            });
            Some((l, v))
        })
        .collect())
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document of a chart.
pub(crate) fn svg(kind: Kind, title: &str, points: &[(String, f64)]) -> String {
    let mut body = String::new();
    match kind {
        Kind::Pie => pie(points, &mut body),
        Kind::Bar | Kind::Line => axes(kind, points, &mut body),
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">{}</text>\n{body}</svg>\n",
        W / 2.0,
        escape(title)
    )
}

fn axes(kind: Kind, points: &[(String, f64)], out: &mut String) {
    let (left, right, top, bottom) = (60.0, W - 20.0, 40.0, H - 60.0);
    let max = points.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let min = points.iter().map(|p| p.1).fold(0.0f64, f64::min);
    let span = if max - min > 0.0 { max - min } else { 1.0 };
    let y = |v: f64| bottom - (v - min) / span * (bottom - top);
    out.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{b}\" x2=\"{right}\" y2=\"{b}\" stroke=\"#333\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\" stroke=\"#333\"/>\n\
         <text x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{max}</text>\n\
         <text x=\"{lx}\" y=\"{by}\" text-anchor=\"end\">{min}</text>\n",
        b = y(0.0),
        lx = left - 4.0,
        ty = top + 4.0,
        by = bottom + 4.0,
    ));
    let n = points.len().max(1) as f64;
    let step = (right - left) / n;
    let mut line = Vec::new();
    for (i, (label, v)) in points.iter().enumerate() {
        let cx = left + step * (i as f64 + 0.5);
        if kind == Kind::Bar {
            let (y0, y1) = (y(0.0), y(*v));
            out.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {v}</title></rect>\n",
                cx - step * 0.35,
                y0.min(y1),
                step * 0.7,
                (y0 - y1).abs(),
                COLORS[0],
                escape(label)
            ));
        } else {
            line.push(format!("{cx:.1},{:.1}", y(*v)));
        }
        out.push_str(&format!(
            "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"end\" transform=\"rotate(-35 {cx:.1} {:.1})\">{}</text>\n",
            bottom + 14.0,
            bottom + 14.0,
            escape(label)
        ));
    }
    if kind == Kind::Line {
        out.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
            line.join(" "),
            COLORS[0]
        ));
    }
}

fn pie(points: &[(String, f64)], out: &mut String) {
    let total: f64 = points.iter().map(|p| p.1.max(0.0)).sum();
    let (cx, cy, r) = (W * 0.38, H * 0.55, 140.0);
    let mut angle = -std::f64::consts::FRAC_PI_2;
    for (i, (label, v)) in points.iter().enumerate() {
        let share = if total > 0.0 { v.max(0.0) / total } else { 0.0 };
        let color = COLORS[i % COLORS.len()];
        if share >= 0.9999 {
            out.push_str(&format!(
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{color}\"/>\n"
            ));
        } else if share > 0.0 {
            let end = angle + share * std::f64::consts::TAU;
            let large = i32::from(share > 0.5);
            out.push_str(&format!(
                "<path d=\"M{cx},{cy} L{:.1},{:.1} A{r},{r} 0 {large} 1 {:.1},{:.1} Z\" fill=\"{color}\"/>\n",
                cx + r * angle.cos(),
                cy + r * angle.sin(),
                cx + r * end.cos(),
                cy + r * end.sin()
            ));
            angle = end;
        }
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{color}\"/>\
             <text x=\"{}\" y=\"{}\">{} ({:.1}%)</text>\n",
            W * 0.7,
            60.0 + 18.0 * i as f64,
            W * 0.7 + 14.0,
            69.0 + 18.0 * i as f64,
            escape(label),
            share * 100.0
        ));
    }
}

/// The points as the agent reads them.
pub(crate) fn points_json(points: &[(String, f64)]) -> Value {
    Value::Array(
        points
            .iter()
            .map(|(l, v)| json!({"label": l, "value": Cell::number(*v).to_json()}))
            .collect(),
    )
}
