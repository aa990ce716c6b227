//! [`ParseError`], its [`ErrorKind`] and [`Span`].

use core::fmt;
use core::ops::Range;

use crate::MAX_DEPENDENCIES;

/// What is wrong with a `depends_on` spec.
#[non_exhaustive]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ErrorKind {
    /// A token is empty after trimming, in a spec that is not blank:
    /// a leading, trailing or doubled comma, or a comma-separated run of whitespace.
    EmptyToken,
    /// A token equals an earlier token (exact bytes, case-sensitive).
    DuplicateToken,
    /// A distinct token beyond the first [`MAX_DEPENDENCIES`].
    TooMany,
}

impl ErrorKind {
    /// The kind's structured-log token: `"empty_token"`, `"duplicate_token"` or `"too_many"`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::EmptyToken => "empty_token",
            ErrorKind::DuplicateToken => "duplicate_token",
            ErrorKind::TooMany => "too_many",
        }
    }
}

/// A byte range into the parsed spec.
///
/// For a non-empty token it covers the token after trimming.
/// For an empty token it is the empty range at the start of that token's comma-separated
/// segment, i.e. right after the preceding comma (or at 0 for the first token):
/// for `"A,"` it is `2..2`, for `"A, , B"` it is `2..2`, for `",A"` it is `0..0`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Span {
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl Span {
    /// The span as a `Range`, ready to index the parsed spec with.
    #[inline]
    pub const fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl From<Span> for Range<usize> {
    #[inline]
    fn from(span: Span) -> Self {
        span.range()
    }
}

/// Why [`DepSpec::parse`](crate::DepSpec::parse) rejected a spec, and where.
///
/// `Copy`, allocation-free, and independent of the input's lifetime.
/// Its [`Display`](fmt::Display) text says what, where and how to fix it;
/// [`ParseError::display_with`] also quotes the offending token.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// Where the offending token sits in the input (see [`Span`]).
    pub span: Span,
    /// 0-based index of the offending token among the comma-separated tokens.
    pub position: usize,
}

impl ParseError {
    #[inline]
    pub(crate) const fn new(kind: ErrorKind, start: usize, end: usize, position: usize) -> Self {
        ParseError {
            kind,
            span: Span { start, end },
            position,
        }
    }

    /// The offending token in `spec`, the input that produced this error
    /// (`None` if the span does not fit `spec`).
    ///
    /// For [`ErrorKind::EmptyToken`] this is `""`.
    #[inline]
    pub fn token<'s>(&self, spec: &'s str) -> Option<&'s str> {
        spec.get(self.span.range())
    }

    /// A [`Display`](fmt::Display) of this error that also quotes the offending token,
    /// taken from `spec`, the input that produced this error.
    ///
    /// Long tokens are cut after 64 bytes; control characters are escaped.
    ///
    /// ```
    /// use laige_depspec::DepSpec;
    ///
    /// let spec = "Spawner, Spawner";
    /// let err = DepSpec::parse(spec).unwrap_err();
    /// assert_eq!(
    ///     err.display_with(spec).to_string(),
    ///     "duplicate dependency `Spawner` at bytes 9..16 (token 1): list each system once",
    /// );
    /// ```
    #[inline]
    pub fn display_with<'s>(&self, spec: &'s str) -> WithSpec<'s> {
        WithSpec {
            error: *self,
            token: self.token(spec),
        }
    }

    /// A [`Display`](fmt::Display) of this error that quotes `token` as it displays, for a
    /// caller with its own rules for showing untrusted text (laige escapes and bounds it in
    /// one place, `laige_diag::Text`). Pass [`ParseError::token`]'s answer, rendered.
    #[inline]
    pub fn display_quoting<T: fmt::Display>(&self, token: Option<T>) -> WithToken<T> {
        WithToken {
            error: *self,
            token,
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, token: Option<&dyn fmt::Display>) -> fmt::Result {
        let Span { start, end } = self.span;
        let position = self.position;
        match self.kind {
            ErrorKind::EmptyToken => write!(
                f,
                "empty token at bytes {start}..{end} (token {position}): remove the extra comma"
            ),
            ErrorKind::DuplicateToken => {
                f.write_str("duplicate dependency ")?;
                write_quoted(f, token)?;
                write!(
                    f,
                    "at bytes {start}..{end} (token {position}): list each system once"
                )
            }
            ErrorKind::TooMany => {
                write!(
                    f,
                    "more than {MAX_DEPENDENCIES} dependencies (token {position} "
                )?;
                write_quoted(f, token)?;
                write!(
                    f,
                    "at bytes {start}..{end}): a system may list at most {MAX_DEPENDENCIES}; \
                     run it after a system that already depends on the rest"
                )
            }
        }
    }
}

/// Longest token prefix, in bytes, that [`WithSpec`] quotes.
const QUOTE_MAX: usize = 64;

/// Writes `` `token` `` followed by a space (nothing if there is no token).
fn write_quoted(f: &mut fmt::Formatter<'_>, token: Option<&dyn fmt::Display>) -> fmt::Result {
    match token {
        Some(token) => write!(f, "`{token}` "),
        None => Ok(()),
    }
}

/// A token cut after [`QUOTE_MAX`] bytes (marked `...`), control characters escaped.
struct Quoted<'s>(&'s str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let token = self.0;
        let mut cut = token.len().min(QUOTE_MAX);
        while !token.is_char_boundary(cut) {
            cut -= 1;
        }
        for c in token[..cut].chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        if cut < token.len() {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, None)
    }
}

impl core::error::Error for ParseError {}

/// A [`ParseError`] displayed with its offending token quoted; see [`ParseError::display_with`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct WithSpec<'s> {
    error: ParseError,
    token: Option<&'s str>,
}

impl fmt::Display for WithSpec<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = self.token.map(Quoted);
        self.error
            .write(f, quoted.as_ref().map(|it| it as &dyn fmt::Display))
    }
}

/// A [`ParseError`] displayed with a caller-rendered token; see [`ParseError::display_quoting`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct WithToken<T> {
    error: ParseError,
    token: Option<T>,
}

impl<T: fmt::Display> fmt::Display for WithToken<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error
            .write(f, self.token.as_ref().map(|it| it as &dyn fmt::Display))
    }
}
