//! Language-independent keys of reported issues, so that one issue
//! reported in Chinese by one session and in English by another is one row
//! of the report, read as one message of the catalogue in the reader's
//! language ([`issue_message`]).
//!
//! The built-in virtual user (the persona engine) words its blockers and
//! misled points from a fixed catalogue in both languages; each entry has a
//! key (`builtin:<name>`, with the slot or figure it names when it names
//! one). Any other text is its own key: trimmed, white space and case
//! folded ([`issue_key`]).

use crate::i18n::{Msg, Text};

/// Case- and space-folded form of an issue text, used to group the same
/// blocker reported by several sessions.
pub fn issue_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', '。', '!', '！'])
        .to_string()
}

/// What a catalogue phrasing names, besides its fixed words.
#[derive(Clone, Copy)]
enum Param {
    None,
    /// A slot, by its label in the persona's language.
    Slot,
    /// A figure, the same in both languages; another figure is another
    /// issue.
    Number,
    /// A count that only qualifies the issue (how many replies it took):
    /// every count is the same issue.
    Count,
}

/// One issue of the persona engine's catalogue: its key and its phrasing
/// in English and Chinese, `{}` standing for the slot or figure.
struct Phrasing {
    key: &'static str,
    param: Param,
    en: &'static str,
    zh: &'static str,
}

const CATALOGUE: &[Phrasing] = &[
    Phrasing {
        key: "target_empty_reply",
        param: Param::None,
        en: "target gave an empty reply",
        zh: "对方回复为空",
    },
    Phrasing {
        key: "target_repeated_reply",
        param: Param::None,
        en: "target repeated the same reply",
        zh: "对方重复了同样的回复",
    },
    Phrasing {
        key: "target_refused",
        param: Param::None,
        en: "target refused or said it could not help",
        zh: "对方拒绝或说帮不了",
    },
    Phrasing {
        key: "kept_asking_after_everything_given",
        param: Param::None,
        en: "kept asking after I had given everything",
        zh: "给全信息后对方仍在发问",
    },
    Phrasing {
        key: "asked_twice",
        param: Param::Slot,
        en: "asked for the {} twice",
        zh: "对方重复询问{}",
    },
    Phrasing {
        key: "ignored_correction",
        param: Param::Slot,
        en: "reply ignored my correction of the {}",
        zh: "回复无视了我对{}的更正",
    },
    Phrasing {
        key: "done_before_given",
        param: Param::Slot,
        en: "said it was done before I gave the {}",
        zh: "我还没提供{}，对方就说已经办好了",
    },
    Phrasing {
        key: "unverified_figure",
        param: Param::Number,
        en: "stated a figure ({}) that is not in anything I gave",
        zh: "对方给出了我没提供、目标里也没有的数字（{}）",
    },
    Phrasing {
        key: "gave_up",
        param: Param::Count,
        en: "gave up after {} unhelpful replies",
        zh: "连续{}次没有得到有用的回复，放弃了",
    },
    Phrasing {
        key: "out_of_turns",
        param: Param::None,
        en: "ran out of turns before the goal was met",
        zh: "轮数用完，目标仍未达成",
    },
    Phrasing {
        key: "target_stopped_answering",
        param: Param::None,
        en: "the target stopped answering",
        zh: "对方无法访问",
    },
    Phrasing {
        key: "budget_cut_short",
        param: Param::None,
        en: "the exploration budget cut the session short",
        zh: "探索预算用完，会话被截断",
    },
];

/// The slots the persona engine names by a label of their own: key,
/// English label, Chinese label. Any other slot is named by its key with
/// `_` read as a space, in both languages.
const SLOT_LABELS: &[(&str, &str, &str)] = &[
    ("to", "recipient", "收件人"),
    ("subject", "subject", "主题"),
    ("body", "body", "正文"),
    ("date", "date", "日期"),
    ("time", "time", "时间"),
    ("city", "city", "地点"),
    ("amount", "amount", "金额"),
    ("name", "name", "姓名"),
    ("phone", "phone", "电话"),
    ("order_id", "order", "订单号"),
    ("cc", "cc", "抄送"),
];

/// The label of slot `key` as a message, when it has one of its own.
pub fn slot_msg(key: &str) -> Option<Msg> {
    SLOT_LABELS
        .iter()
        .any(|(k, _, _)| *k == key)
        .then(|| Msg::new(format!("slot-{key}")))
}

fn slot_of_label(label: &str) -> String {
    SLOT_LABELS
        .iter()
        .find(|(_, en, zh)| *en == label || *zh == label)
        .map(|(key, _, _)| key.to_string())
        .unwrap_or_else(|| label.replace(' ', "_"))
}

/// The parameter of `text` when it is `template` with `{}` filled in.
fn fill<'t>(template: &str, text: &'t str) -> Option<&'t str> {
    let template = issue_key(template);
    let (prefix, suffix) = template.split_once("{}")?;
    let middle = text.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!middle.trim().is_empty()).then_some(middle.trim())
}

/// The catalogue entry `text` is a phrasing of, with what fills its `{}`:
/// a slot key, a figure or a count.
fn catalogue_match(text: &str) -> Option<(&'static Phrasing, Option<String>)> {
    let folded = issue_key(text);
    for p in CATALOGUE {
        for template in [p.en, p.zh] {
            match p.param {
                Param::None if issue_key(template) == folded => return Some((p, None)),
                Param::None => {}
                Param::Slot => {
                    if let Some(label) = fill(template, &folded) {
                        return Some((p, Some(slot_of_label(label))));
                    }
                }
                Param::Number | Param::Count => {
                    if let Some(n) = fill(template, &folded)
                        && n.chars().all(|c| c.is_ascii_digit() || ".,-".contains(c))
                    {
                        return Some((p, Some(n.to_string())));
                    }
                }
            }
        }
    }
    None
}

/// The key under which the report groups an issue text.
pub fn issue_group_key(text: &str) -> String {
    match catalogue_match(text) {
        Some((p, None))
        | Some((
            p @ Phrasing {
                param: Param::Count,
                ..
            },
            _,
        )) => {
            format!("builtin:{}", p.key)
        }
        Some((p, Some(param))) => format!("builtin:{}:{param}", p.key),
        None => issue_key(text),
    }
}

/// An issue as filed, for a reader: the catalogue's message when it is a
/// phrasing of the built-in virtual user's (in either language) that names
/// nothing but a known slot, a figure or a count; else the words as
/// written.
pub fn issue_text(text: &str) -> Text {
    let unnamed = |m: &Msg| {
        m.args
            .values()
            .any(|a| matches!(a, crate::i18n::Arg::Msg(s) if s.key == "slot-unnamed"))
    };
    match issue_message([text]) {
        Some(m) if !unnamed(&m) => Text::Msg(m),
        _ => Text::Plain(text.to_string()),
    }
}

/// The words of an issue as the catalogue phrases it in English (or as
/// written), to group it by ([`issue_group_key`]) and to match phrasings
/// ([`issue_message`]) whichever way it was stored.
pub fn issue_words(text: &Text) -> String {
    let Text::Msg(m) = text else {
        return text.render(crate::i18n::Lang::En);
    };
    let phrasing = m
        .key
        .strip_prefix("issue-")
        .and_then(|key| CATALOGUE.iter().find(|p| p.key == key));
    let Some(p) = phrasing else {
        return text.render(crate::i18n::Lang::En);
    };
    let arg = |name: &str| match m.args.get(name) {
        Some(crate::i18n::Arg::Msg(slot)) => slot
            .key
            .strip_prefix("slot-")
            .and_then(|k| SLOT_LABELS.iter().find(|(key, _, _)| *key == k))
            .map(|(_, en, _)| en.to_string()),
        Some(crate::i18n::Arg::Str(s)) => Some(s.clone()),
        Some(crate::i18n::Arg::Int(n)) => Some(n.to_string()),
        _ => None,
    };
    let param = match p.param {
        Param::None => None,
        Param::Slot => arg("slot"),
        Param::Number => arg("figure"),
        Param::Count => arg("count"),
    };
    match param {
        Some(v) => p.en.replace("{}", &v),
        None => p.en.to_string(),
    }
}

/// A list of issues as stored (strings as filed, or messages) read with
/// [`issue_text`]: a record filed before there were messages reads the
/// same as one filed since.
pub fn deserialize_issues<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Text>, D::Error> {
    let stored: Vec<Text> = serde::Deserialize::deserialize(d)?;
    Ok(stored
        .into_iter()
        .map(|t| match t {
            Text::Plain(s) => issue_text(&s),
            said => said,
        })
        .collect())
}

/// The issue the built-in virtual user reported in `texts` (its phrasings,
/// in either language), as one message of the catalogue (`issue-<key>`):
/// a slot named by its label (or described when it has none, never by its
/// key), a figure as it was stated, and a count as the range seen ("2–4"),
/// so that one issue is one line in each language. `None` for free text.
pub fn issue_message<'t>(texts: impl IntoIterator<Item = &'t str>) -> Option<Msg> {
    let mut first: Option<(&'static Phrasing, Option<String>)> = None;
    let mut counts: Vec<u64> = Vec::new();
    for text in texts {
        let Some((p, param)) = catalogue_match(text) else {
            continue;
        };
        if let (Param::Count, Some(n)) = (p.param, &param)
            && let Ok(n) = n.replace([',', '.'], "").parse::<u64>()
        {
            counts.push(n);
        }
        if first.is_none() {
            first = Some((p, param));
        }
    }
    let (p, param) = first?;
    let msg = Msg::new(format!("issue-{}", p.key));
    Some(match (p.param, param) {
        (Param::None, _) => msg,
        (Param::Slot, Some(slot)) => msg.arg(
            "slot",
            slot_msg(&slot).unwrap_or_else(|| Msg::new("slot-unnamed")),
        ),
        (Param::Number, Some(figure)) => msg.arg("figure", figure),
        (Param::Count, _) => {
            let (lo, hi) = (counts.iter().min(), counts.iter().max());
            let range = match (lo, hi) {
                (Some(lo), Some(hi)) if lo != hi => format!("{lo}–{hi}"),
                (Some(n), _) => n.to_string(),
                _ => "?".to_string(),
            };
            msg.arg("count", range)
        }
        (_, None) => msg,
    })
}

/// Every issue of the catalogue, by key, and the slots it names by label:
/// for the catalogue's completeness test.
pub fn catalogue_keys() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        CATALOGUE.iter().map(|p| p.key).collect(),
        SLOT_LABELS.iter().map(|(key, _, _)| *key).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{issue_group_key, issue_text, issue_words};
    use crate::i18n::{Lang, Text};

    #[test]
    fn a_built_in_phrasing_read_as_a_message_keeps_its_group_and_reads_in_both_languages() {
        for said in [
            "target repeated the same reply",
            "对方重复询问订单号",
            "asked for the phone twice",
            "stated a figure (12.5) that is not in anything I gave",
            "连续3次没有得到有用的回复，放弃了",
        ] {
            let text = issue_text(said);
            assert!(matches!(text, Text::Msg(_)), "{said}");
            assert_eq!(
                issue_group_key(&issue_words(&text)),
                issue_group_key(said),
                "{said}"
            );
        }
        assert_eq!(
            issue_text("asked for the recipient twice").render(Lang::Zh),
            "对方重复询问收件人"
        );
        // Free words, and a slot the catalogue cannot name, stay as written.
        for said in [
            "The bot forgot my name",
            "asked for the delivery window twice",
        ] {
            assert_eq!(issue_text(said), Text::Plain(said.into()));
            assert_eq!(issue_words(&issue_text(said)), said);
        }
    }

    #[test]
    fn the_catalogue_phrasings_of_one_issue_share_a_key() {
        let pairs = [
            ("target repeated the same reply", "对方重复了同样的回复"),
            ("Target gave an empty reply.", "对方回复为空"),
            ("asked for the recipient twice", "对方重复询问收件人"),
            ("asked for the order twice", "对方重复询问订单号"),
            (
                "reply ignored my correction of the date",
                "回复无视了我对日期的更正",
            ),
            (
                "said it was done before I gave the subject",
                "我还没提供主题，对方就说已经办好了",
            ),
            (
                "stated a figure (1200) that is not in anything I gave",
                "对方给出了我没提供、目标里也没有的数字（1200）",
            ),
            (
                "gave up after 3 unhelpful replies",
                "连续3次没有得到有用的回复，放弃了",
            ),
            (
                "the exploration budget cut the session short",
                "探索预算用完，会话被截断",
            ),
            ("asked for the flight no twice", "对方重复询问flight no"),
        ];
        for (en, zh) in pairs {
            let key = issue_group_key(en);
            assert!(key.starts_with("builtin:"), "{en} is a catalogue phrasing");
            assert_eq!(key, issue_group_key(zh), "{en} and {zh} are one issue");
        }
        assert_eq!(
            issue_group_key("asked for the recipient twice"),
            "builtin:asked_twice:to"
        );
        assert_ne!(
            issue_group_key("asked for the recipient twice"),
            issue_group_key("asked for the date twice"),
            "another slot is another issue"
        );
        assert_eq!(
            issue_group_key("gave up after 2 unhelpful replies"),
            issue_group_key("连续4次没有得到有用的回复，放弃了"),
            "giving up is one issue, however many replies it took"
        );
        assert_ne!(
            issue_group_key("stated a figure (12.5) that is not in anything I gave"),
            issue_group_key("stated a figure (905) that is not in anything I gave"),
            "another invented figure is another issue"
        );
    }

    #[test]
    fn other_texts_are_their_own_folded_key() {
        assert_eq!(
            issue_group_key("  The  bot forgot my NAME. "),
            "the bot forgot my name"
        );
        assert_eq!(
            issue_group_key("asked for the  twice"),
            "asked for the twice",
            "a catalogue phrasing without its slot is plain text"
        );
    }
}
