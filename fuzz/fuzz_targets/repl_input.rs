//! Any text typed at the prompt, one line at a time: the REPL's decision whether an entry
//! is complete (`repl::input::decide`) after each line, as the prompt asks it.
#![no_main]

use apy::repl::input::{Decision, decide};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines: Vec<String> = Vec::new();
    for line in text.split('\n') {
        lines.push(line.to_string());
        if decide(&lines) != Decision::NeedMore {
            lines.clear();
        }
    }
});
