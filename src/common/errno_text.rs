//! The words the operating system has for an errno (C's `strerror`), as CPython's
//! `OSError.strerror` and `os.strerror` give them.

use std::io;

/// The text `strerror` gives for `errno` (CPython's `OSError.strerror`).
pub fn strerror(errno: i32) -> String {
    let text = io::Error::from_raw_os_error(errno).to_string();
    // std words it "Connection refused (os error 111)".
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_os_words_without_the_number() {
        assert_eq!(super::strerror(2), "No such file or directory");
    }
}
