//! What the YAML reader found wrong, in the reader's words: the common
//! shapes of its complaints (a value of the wrong type, a missing or an
//! unknown field) become messages of the catalogue with the place and the
//! names as they are; anything else is shown as the reader said it.

use crate::i18n::Msg;
use crate::msg;
use regex::Regex;
use std::sync::LazyLock;

static INVALID_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?P<path>[^\s:]+): )?invalid type: (?P<found>.+?), expected (?P<expected>.+)$")
        .expect("static regex")
});
static MISSING_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?P<path>[^\s:]+): )?missing field `(?P<field>[^`]+)`$").expect("static regex")
});
static UNKNOWN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?P<path>[^\s:]+): )?unknown (?P<what>field|variant) `(?P<name>[^`]*)`, expected (?:one of )?(?P<expected>.+)$",
    )
    .expect("static regex")
});

/// The kind of value serde names (`map`, `a string`, `integer `5``), as a
/// message when it is a common one; else its words as code.
fn kind_of_value(words: &str) -> crate::i18n::Arg {
    let bare = words
        .trim()
        .trim_start_matches("a ")
        .trim_start_matches("an ");
    let key = match bare.split([' ', '`']).next().unwrap_or(bare) {
        "map" | "struct" => "yaml-kind-map",
        "sequence" => "yaml-kind-list",
        "string" | "str" | "char" => "yaml-kind-text",
        "integer" | "i64" | "u64" | "u32" | "i32" | "u8" => "yaml-kind-integer",
        "floating" | "f64" | "f32" => "yaml-kind-number",
        "boolean" | "bool" => "yaml-kind-boolean",
        "unit" | "null" => "yaml-kind-null",
        _ => return format!("`{}`", words.trim()).into(),
    };
    Msg::new(key).into()
}

/// Where in the file, as serde names it (`scenarios[0].tags[0]`), or the
/// top of the file.
fn place(path: Option<regex::Match<'_>>) -> crate::i18n::Arg {
    match path.map(|p| p.as_str()).filter(|p| *p != ".") {
        Some(p) => format!("`{p}`").into(),
        None => msg!("yaml-top").into(),
    }
}

/// `message` (serde's, without its location) in the reader's words.
pub(super) fn yaml_problem(message: &str) -> Msg {
    if let Some(c) = INVALID_TYPE.captures(message) {
        return msg!(
            "yaml-invalid-type",
            place = place(c.name("path")),
            found = kind_of_value(&c["found"]),
            expected = kind_of_value(&c["expected"])
        );
    }
    if let Some(c) = MISSING_FIELD.captures(message) {
        return msg!(
            "yaml-missing-field",
            place = place(c.name("path")),
            field = format!("`{}`", &c["field"])
        );
    }
    if let Some(c) = UNKNOWN.captures(message) {
        let key = if &c["what"] == "field" {
            "yaml-unknown-field"
        } else {
            "yaml-unknown-variant"
        };
        return Msg::new(key)
            .arg("place", place(c.name("path")))
            .arg("name", format!("`{}`", &c["name"]))
            .arg("expected", c["expected"].to_string());
    }
    msg!("yaml-other", detail = message)
}

#[cfg(test)]
mod tests {
    use super::yaml_problem;
    use crate::i18n::Lang;

    #[test]
    fn common_complaints_read_in_both_languages() {
        let m = yaml_problem("scenarios[0].tags[0]: invalid type: map, expected a string");
        assert_eq!(
            m.render(Lang::Zh),
            "`scenarios[0].tags[0]`的类型不对：应为文本，实际是对象（键: 值）"
        );
        assert_eq!(
            m.render(Lang::En),
            "`scenarios[0].tags[0]` has the wrong type: text was expected, an object (key: value) was found"
        );
        let m = yaml_problem("scenarios[1]: missing field `turns`");
        assert_eq!(m.render(Lang::Zh), "`scenarios[1]`缺少字段 `turns`");
        let m = yaml_problem(
            "scenarios[0]: unknown field `turn`, expected one of `id`, `title`, `turns`",
        );
        assert!(
            m.render(Lang::Zh)
                .starts_with("`scenarios[0]`有未知字段 `turn`")
        );
        let m = yaml_problem("invalid type: integer `5`, expected a sequence");
        assert_eq!(
            m.render(Lang::Zh),
            "文件顶层的类型不对：应为列表，实际是整数"
        );
        let m = yaml_problem("did not find expected node content");
        assert_eq!(
            m.render(Lang::Zh),
            "YAML 无法解析：did not find expected node content"
        );
    }
}
