//! The emotions of an experience record: the closed list, and free words
//! mapped onto it. Below the catalogue (`i18n` names each) and the session
//! types (a record carries one).

/// The emotions an experience record may carry; anything else is mapped
/// onto this list (the original is kept as `emotion_raw`).
pub const EMOTIONS: [&str; 7] = [
    "satisfied",
    "neutral",
    "confused",
    "frustrated",
    "angry",
    "delighted",
    "anxious",
];

/// Maps a free-form emotion (English or Chinese, any case) onto
/// [`EMOTIONS`]. Returns the canonical emotion and whether the input was
/// already canonical.
pub fn normalize_emotion(raw: &str) -> (&'static str, bool) {
    let folded = raw.trim().to_lowercase();
    if let Some(e) = EMOTIONS.iter().find(|e| **e == folded) {
        return (e, true);
    }
    let canonical = match folded.as_str() {
        "" => "neutral",
        "happy" | "pleased" | "content" | "glad" | "satisfaction" | "good" | "fine" | "满意"
        | "满足" | "还行" | "不错" => "satisfied",
        "ok" | "okay" | "calm" | "indifferent" | "meh" | "中立" | "平静" | "一般" | "中性"
        | "无感" => "neutral",
        "confusion" | "puzzled" | "lost" | "unsure" | "uncertain" | "bewildered" | "困惑"
        | "迷惑" | "疑惑" | "迷茫" | "不解" => "confused",
        "frustration" | "annoyed" | "irritated" | "disappointed" | "impatient" | "upset"
        | "tired" | "沮丧" | "失望" | "烦躁" | "不耐烦" | "无奈" | "烦" => "frustrated",
        "anger" | "mad" | "furious" | "outraged" | "生气" | "愤怒" | "恼火" | "气愤" | "暴怒" => {
            "angry"
        }
        "delight" | "joyful" | "excited" | "thrilled" | "very happy" | "impressed" | "开心"
        | "高兴" | "惊喜" | "愉快" | "非常满意" | "兴奋" => "delighted",
        "anxiety" | "worried" | "nervous" | "stressed" | "afraid" | "焦虑" | "担心" | "紧张"
        | "不安" | "着急" => "anxious",
        _ => "neutral",
    };
    (canonical, false)
}
