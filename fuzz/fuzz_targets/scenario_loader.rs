//! Any text as a scenario file: the loader returns scenarios or errors
//! with a line, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count().max(1) as u32;
    match agenteval_engine::scenario::loader::parse_file(&text, "fuzz.yaml", "fuzz.yaml", "fuzz") {
        Ok(scenarios) => {
            for s in scenarios {
                assert!(!s.id.is_empty(), "a loaded scenario has an id");
                assert!(!s.turns.is_empty(), "a loaded scenario has turns");
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "a refusal says why");
            for e in errors {
                assert!(e.line >= 1, "lines are 1-based");
                assert!(
                    e.line <= lines + 1,
                    "line {} of a {lines}-line file",
                    e.line
                );
                assert!(!e.message.contains('\n'), "one error, one line");
            }
        }
    }
});
