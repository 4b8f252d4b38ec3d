//! Where a key sits in the YAML text, so that an error names its line.

pub(super) fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

pub(super) fn significant(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && !t.starts_with('#')
}

/// Whether `line` sets `key` (possibly as a list item, possibly quoted).
pub(super) fn sets_key(line: &str, key: &str) -> bool {
    let t = line.trim_start().trim_start_matches("- ").trim_start();
    [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ]
    .iter()
    .any(|k| t.starts_with(k.as_str()))
}

/// The (0-based index, indent) of the line setting `path`, searching each
/// key inside its parent's block; `None` when the first key is absent.
pub(super) fn find(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Option<(usize, usize)> = None;
    for key in path {
        let (from, parent_indent) = match found {
            None => (0, None),
            Some((i, ind)) => (i + 1, Some(ind)),
        };
        let mut hit = None;
        for (i, l) in lines.iter().enumerate().skip(from) {
            if !significant(l) {
                continue;
            }
            let ind = indent_of(l);
            if parent_indent.is_some_and(|p| ind <= p) {
                break;
            }
            if parent_indent.is_none() && ind > 0 {
                continue;
            }
            if sets_key(l, key) {
                hit = Some((i, ind));
                break;
            }
        }
        match hit {
            Some(h) => found = Some(h),
            None => break,
        }
    }
    found
}

/// The 1-based line setting `path`, or of its nearest parent found (1 when
/// none is).
pub fn line_of(text: &str, path: &[&str]) -> usize {
    find(text, path).map_or(1, |(i, _)| i + 1)
}

/// The line of the `n`th (0-based) list item under `path`; the line of
/// `path` when it cannot be found (e.g. a flow list `[a, b]`).
pub(super) fn list_item_line(text: &str, path: &[&str], n: usize) -> usize {
    let Some((start, indent)) = find(text, path) else {
        return 1;
    };
    text.lines()
        .enumerate()
        .skip(start + 1)
        .take_while(|(_, l)| !significant(l) || indent_of(l) > indent)
        .filter(|(_, l)| l.trim_start().starts_with("- "))
        .nth(n)
        .map_or(start + 1, |(i, _)| i + 1)
}

/// The line of the `n`th (0-based) line starting with `key` under `path`.
pub(super) fn nth_line(text: &str, path: &[&str], key: &str, n: usize) -> usize {
    let Some((start, indent)) = find(text, path) else {
        return 1;
    };
    text.lines()
        .enumerate()
        .skip(start + 1)
        .take_while(|(_, l)| !significant(l) || indent_of(l) > indent)
        .filter(|(_, l)| l.trim_start().trim_start_matches("- ").starts_with(key))
        .nth(n)
        .map_or(start + 1, |(i, _)| i + 1)
}
