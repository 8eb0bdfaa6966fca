//! Text made safe to show on a terminal. What bootgen prints for a person quotes configs, log
//! bundles and paths that anyone may have written: a raw escape sequence in them would clear
//! the screen, set the window title, or (with the bidirectional overrides) show text in another
//! order than it is. Each such character is shown as an escape a person can read instead.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal as itself: the C0 controls but newline and tab, DEL,
/// the C1 controls (U+0080 to U+009F: some terminals obey U+009B as ESC `[`), and the
/// bidirectional marks, embeddings, overrides and isolates.
pub fn is_terminal_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character [`is_terminal_unsafe`] says may not be printed shown as an
/// escape: `\x1b` for an ASCII control, `\u{9b}` or `\u{202e}` for the others. Newlines and
/// tabs stay. Text with nothing to escape is borrowed, and escaping twice changes nothing.
/// (Invalid UTF-8 never gets this far: it was read lossily, as U+FFFD, which is visible.)
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_terminal_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !is_terminal_unsafe(c) {
            out.push(c);
        } else if c.is_ascii() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes_and_plain_text_is_borrowed() {
        let hostile = "a\x1b[2J b\x1b]0;pwned\x07 c\u{9b}31m d\u{202e}e\r\x7f\0\tf\n";
        let safe = terminal_safe(hostile);
        assert_eq!(
            safe,
            "a\\x1b[2J b\\x1b]0;pwned\\x07 c\\u{9b}31m d\\u{202e}e\\x0d\\x7f\\x00\tf\n"
        );
        assert!(!safe.chars().any(is_terminal_unsafe));
        assert_eq!(terminal_safe(&safe), safe);
        let plain = "path /etc/motd: mode 0644 ✓\n";
        assert!(matches!(terminal_safe(plain), Cow::Borrowed(_)));
    }
}
