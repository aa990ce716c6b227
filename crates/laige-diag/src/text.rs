//! Untrusted text in events and messages: escaped and bounded here, and nowhere else.
//! The rules are documented on [`Text`].

use std::fmt::{self, Write as _};

use arrayvec::ArrayString;

/// How many bytes of one name an error message or an event field shows, unless the
/// contract gives the field its own limit ([`field_limit`]).
pub const NAME_LIMIT: usize = 255;

/// The contract's limits on field values, in bytes (laige contract §2.3): a `depends_on`
/// token was copied into a 64-byte buffer and the cycle into a 256-byte one, each with its
/// terminating NUL.
const FIELD_LIMITS: &[(&str, usize)] = &[("missing_dep", 63), ("cycle", 255)];

/// The most bytes any field keeps; every limit is at most this.
pub(crate) const FIELD_CAPACITY: usize = 255;

/// What ends a cut text.
pub const TRUNCATION_MARKER: &str = "...";

/// How many bytes of escaped text the event field `key` keeps.
pub fn field_limit(key: &str) -> usize {
    FIELD_LIMITS
        .iter()
        .find(|(name, _)| *name == key)
        .map_or(NAME_LIMIT, |&(_, limit)| limit)
        .min(FIELD_CAPACITY)
}

/// A value's text, escaped and bounded when displayed.
///
/// A system's name, a `depends_on` token or a panic message is whatever the application
/// wrote, possibly a megabyte long or full of control bytes. Before such text reaches an
/// error message it goes through `Text` (and an event field through the same rules, at
/// the field's [`field_limit`]), which
/// - escapes a backslash as `\\`, NUL, tab, CR and LF as `\0`, `\t`, `\r`, `\n`, and every
///   other control character or bidirectional-formatting character as `\u{..}`, so a log
///   line cannot be split, recoloured or reordered, and a name that merely *contains*
///   `\0` or `\xff` as text reads differently from one that contains the byte;
/// - keeps at most a limit of bytes of the escaped text, cut on a character boundary (an
///   escape is never split), and ends a cut text with [`TRUNCATION_MARKER`], which counts
///   toward the limit, as the executor's panic messages and the tokenizer's quotes do.
///
/// ```
/// use laige_diag::Text;
///
/// assert_eq!(Text::name("Movement").to_string(), "Movement");
/// assert_eq!(Text::name("Mov\0e\\ment").to_string(), r"Mov\0e\\ment");
/// let long = "x".repeat(1000);
/// assert_eq!(Text::with_limit(&long, 32).to_string(), format!("{}...", "x".repeat(29)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<T> {
    value: T,
    limit: usize,
}

impl<T: fmt::Display> Text<T> {
    /// `value` as a name in a message: at most [`NAME_LIMIT`] bytes.
    pub const fn name(value: T) -> Self {
        Self::with_limit(value, NAME_LIMIT)
    }

    /// `value`, at most `limit` bytes (a limit shorter than the marker shows only the marker).
    pub const fn with_limit(value: T, limit: usize) -> Self {
        Self { value, limit }
    }

    /// The value, as given.
    pub fn raw(&self) -> &T {
        &self.value
    }
}

impl<T: fmt::Display> fmt::Display for Text<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(&self.value, self.limit, f)
    }
}

/// A field value's text, escaped and bounded into a fixed buffer, so that it is recorded
/// as a string without allocating: what a text field holds while its event is emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldText(ArrayString<FIELD_CAPACITY>);

impl FieldText {
    /// `value`'s text, escaped, at most `limit` bytes (and at most 255).
    pub fn render(value: &dyn fmt::Display, limit: usize) -> Self {
        let mut text = ArrayString::new();
        // Cannot fail: the text is cut to fit the buffer.
        let _ = render(value, limit.min(FIELD_CAPACITY), &mut text);
        Self(text)
    }

    /// The kept text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Turns a message's text binding into its escaped, bounded [`Text`]; what the
/// [`diagnostics!`](crate::diagnostics) table's `%` marker does to a binding. Implement it
/// for a binding type of your own (as the executor does for a panic's message).
pub trait Escape {
    /// The escaped form.
    type Escaped;
    /// The escaped form, at most [`NAME_LIMIT`] bytes.
    fn escaped(self) -> Self::Escaped;
}

impl<'a> Escape for &'a str {
    type Escaped = Text<&'a str>;
    fn escaped(self) -> Self::Escaped {
        Text::name(self)
    }
}

impl<'a> Escape for &&'a str {
    type Escaped = Text<&'a str>;
    fn escaped(self) -> Self::Escaped {
        Text::name(*self)
    }
}

impl<'a> Escape for &'a Box<str> {
    type Escaped = Text<&'a str>;
    fn escaped(self) -> Self::Escaped {
        Text::name(self)
    }
}

impl<'a> Escape for Option<&'a str> {
    type Escaped = Option<Text<&'a str>>;
    fn escaped(self) -> Self::Escaped {
        self.map(Text::name)
    }
}

impl<'a> Escape for &Option<&'a str> {
    type Escaped = Option<Text<&'a str>>;
    fn escaped(self) -> Self::Escaped {
        self.map(Text::name)
    }
}

/// Writes `value`'s text to `out`, escaped, at most `limit` bytes including the marker.
///
/// Costs O(`limit`), not O(the text): each pass stops formatting `value` once the room is
/// used up, so a megabyte-long name costs no more than a short one.
fn render(value: &dyn fmt::Display, limit: usize, out: &mut dyn fmt::Write) -> fmt::Result {
    let mut discard = Discard;
    let mut probe = Sink::new(&mut discard, limit);
    let fits = write!(probe, "{value}").is_ok();
    let room = if fits {
        limit
    } else {
        limit.saturating_sub(TRUNCATION_MARKER.len())
    };
    let mut sink = Sink::new(out, room);
    if write!(sink, "{value}").is_err() && !sink.full {
        return Err(fmt::Error);
    }
    if !fits {
        out.write_str(TRUNCATION_MARKER)?;
    }
    Ok(())
}

/// Whether `c` is written as an escape: backslash, control and bidi-formatting characters.
fn needs_escape(c: char) -> bool {
    c == '\\'
        || c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Escapes what it is given and keeps the first `room` bytes of the result. Once something
/// does not fit it fails, which stops the value's formatting: what is kept is a prefix.
struct Sink<'a> {
    out: &'a mut dyn fmt::Write,
    room: usize,
    /// Set once something did not fit.
    full: bool,
}

impl<'a> Sink<'a> {
    fn new(out: &'a mut dyn fmt::Write, room: usize) -> Self {
        Self {
            out,
            room,
            full: false,
        }
    }

    /// Plain text, which may be cut between characters.
    fn text(&mut self, s: &str) -> fmt::Result {
        if s.len() <= self.room {
            return self.keep(s);
        }
        let end = s.floor_char_boundary(self.room);
        self.keep(&s[..end])?;
        self.stop()
    }

    /// One escape sequence, kept whole or not at all.
    fn escape(&mut self, s: &str) -> fmt::Result {
        if s.len() <= self.room {
            return self.keep(s);
        }
        self.stop()
    }

    fn keep(&mut self, s: &str) -> fmt::Result {
        self.room -= s.len();
        self.out.write_str(s)
    }

    fn stop(&mut self) -> fmt::Result {
        self.full = true;
        self.room = 0;
        Err(fmt::Error)
    }
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut run = 0;
        for (at, c) in s.char_indices() {
            if at - run > self.room {
                // The plain run alone overflows: no need to look further.
                break;
            }
            if !needs_escape(c) {
                continue;
            }
            self.text(&s[run..at])?;
            let mut escaped = ArrayString::<12>::new();
            match c {
                '\\' => escaped.push_str(r"\\"),
                '\0' => escaped.push_str(r"\0"),
                '\t' => escaped.push_str(r"\t"),
                '\r' => escaped.push_str(r"\r"),
                '\n' => escaped.push_str(r"\n"),
                _ => c.escape_unicode().for_each(|it| escaped.push(it)),
            }
            self.escape(&escaped)?;
            run = at + c.len_utf8();
        }
        self.text(&s[run..])
    }
}

/// A writer that drops everything; the counting pass writes to it.
struct Discard;

impl fmt::Write for Discard {
    fn write_str(&mut self, _: &str) -> fmt::Result {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_short_text_is_unchanged() {
        assert_eq!(Text::name("KatA").to_string(), "KatA");
        assert_eq!(FieldText::render(&"é-ß", 63).as_str(), "é-ß");
    }

    #[test]
    fn control_backslash_and_bidi_characters_are_escaped() {
        let text = "a\0b\tc\nd\re\u{1b}[31mf\u{7f}g\u{85}h\\x00i\u{202e}j";
        assert_eq!(
            Text::name(text).to_string(),
            r"a\0b\tc\nd\re\u{1b}[31mf\u{7f}g\u{85}h\\x00i\u{202e}j"
        );
    }

    #[test]
    fn long_text_is_cut_on_a_char_boundary_with_the_count_left_out() {
        let long = "é".repeat(100); // 200 bytes
        let shown = Text::with_limit(&long, 64).to_string();
        // 61 bytes of room: 30 whole characters, the 31st would be split.
        assert_eq!(shown, format!("{}...", "é".repeat(30)));
    }

    #[test]
    fn escapes_are_never_split() {
        let nuls = "\0".repeat(100); // escapes to 200 bytes
        // 60 bytes of room hold 30 escapes; with 61 the 31st still does not fit whole.
        for limit in [63, 64] {
            let shown = FieldText::render(&nuls, limit);
            assert_eq!(shown.as_str(), format!("{}...", r"\0".repeat(30)));
        }
    }

    #[test]
    fn text_exactly_at_the_limit_is_kept_whole() {
        let exact = "x".repeat(63);
        assert_eq!(FieldText::render(&exact, 63).as_str(), exact);
        let over = "x".repeat(64);
        let shown = FieldText::render(&over, 63);
        assert_eq!(shown.as_str(), format!("{}...", "x".repeat(60)));
    }

    #[test]
    fn field_limits_follow_the_contract() {
        assert_eq!(field_limit("missing_dep"), 63);
        assert_eq!(field_limit("cycle"), 255);
        assert_eq!(field_limit("system"), NAME_LIMIT);
    }
}
