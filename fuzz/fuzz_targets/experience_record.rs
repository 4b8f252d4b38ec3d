//! Any JSON body as an experience record: it is refused as a whole or
//! normalised into the documented bounds, never a panic.
#![no_main]

use agenteval_engine::exploration::session::CloseSession;
use libfuzzer_sys::fuzz_target;

const EMOTIONS: [&str; 7] = [
    "satisfied",
    "neutral",
    "confused",
    "frustrated",
    "angry",
    "delighted",
    "anxious",
];

fn check(close: CloseSession) {
    if let Ok((record, _end)) = close.normalize() {
        let value = serde_json::to_value(&record).expect("a record serialises");
        for list in ["blockers", "misled"] {
            let items = value[list].as_array().expect("lists stay lists");
            assert!(items.len() <= 50, "{list} capped at 50");
            for item in items {
                let s = item.as_str().expect("strings");
                assert!(
                    s.chars().count() <= 500,
                    "{list} items capped at 500 characters"
                );
                assert!(!s.trim().is_empty(), "empty items are dropped");
            }
        }
        let notes = value["notes"].as_str().unwrap_or("");
        assert!(
            notes.chars().count() <= 4000,
            "notes capped at 4000 characters"
        );
        let emotion = value["emotion"].as_str().expect("an emotion");
        assert!(
            EMOTIONS.contains(&emotion),
            "emotion {emotion:?} is in the allow-list"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    // As a JSON body, the way the API receives it.
    if let Ok(close) = serde_json::from_slice::<CloseSession>(data) {
        check(close);
    }
    // As raw text spread over every field, so that the normaliser itself
    // (not only the JSON parser) sees arbitrary strings.
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{1}');
    let emotion = parts.next().map(str::to_string);
    let notes = parts.next().map(str::to_string);
    let items: Vec<String> = parts.map(str::to_string).collect();
    let (blockers, misled) = items.split_at(items.len() / 2);
    check(CloseSession {
        goal_achieved: data.first().is_some_and(|b| b & 1 == 1),
        blockers: Some(blockers.to_vec()),
        misled: Some(misled.to_vec()),
        emotion,
        notes,
        end_reason: None,
    });
});
