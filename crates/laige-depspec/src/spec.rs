//! [`DepSpec`] and its parser.

use core::fmt;

use arrayvec::ArrayVec;

use crate::MAX_DEPENDENCIES;
use crate::error::{ErrorKind, ParseError};

/// A parsed `depends_on` spec: up to [`MAX_DEPENDENCIES`] distinct, non-empty, trimmed tokens,
/// in spec order, each borrowed from the parsed input.
///
/// Build one with [`DepSpec::parse`]; [`DepSpec::EMPTY`] (also the [`Default`]) lists nothing.
/// The value holds no heap memory: its tokens live in a fixed-capacity [`ArrayVec`].
///
/// ```
/// use laige_depspec::DepSpec;
///
/// let deps = DepSpec::parse("Spawner, Movement")?;
/// let names: Vec<&str> = deps.iter().collect();
/// assert_eq!(names, ["Spawner", "Movement"]);
/// for name in &deps {
///     assert!(deps.contains(name));
/// }
/// # Ok::<(), laige_depspec::ParseError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct DepSpec<'a> {
    tokens: ArrayVec<&'a str, MAX_DEPENDENCIES>,
}

impl DepSpec<'static> {
    /// The spec that lists no dependencies (what `""` parses to).
    pub const EMPTY: DepSpec<'static> = DepSpec {
        tokens: ArrayVec::new_const(),
    };
}

/// Whether `b` is one of the four bytes trimmed from a token: space, tab, CR, LF.
#[inline]
const fn is_trimmed(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether a spec can name `name`: it is non-empty, has no comma, and neither starts nor
/// ends with one of the four trimmed bytes. Exactly then [`DepSpec::parse`] of `name` lists
/// `name` itself, and nothing else.
///
/// ```
/// use laige_depspec::is_token;
///
/// assert!(is_token("Movement") && is_token("A B") && is_token("\u{a0}A"));
/// assert!(!is_token("") && !is_token(" A") && !is_token("A\n") && !is_token("A,B"));
/// ```
pub fn is_token(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            !is_trimmed(first) && !is_trimmed(last) && find_comma(bytes).is_none()
        }
        _ => false,
    }
}

impl<'a> DepSpec<'a> {
    /// Parses a `depends_on` spec.
    ///
    /// Tokens are separated by `,` and trimmed of leading and trailing ASCII space, tab, CR and LF.
    /// An empty or whitespace-only `spec` yields [`DepSpec::EMPTY`].
    ///
    /// # Errors
    ///
    /// The first offending token, scanning left to right, decides the error;
    /// no partial result is returned.
    ///
    /// - [`ErrorKind::EmptyToken`]: a token is empty after trimming (and the spec is not blank),
    ///   as in `"A,"`, `",A"`, `"A,,B"` or `"A, , B"`.
    /// - [`ErrorKind::DuplicateToken`]: a token equals an earlier one (exact bytes, case-sensitive).
    /// - [`ErrorKind::TooMany`]: a new, distinct token would be number `MAX_DEPENDENCIES + 1`.
    ///
    /// ```
    /// use laige_depspec::{DepSpec, ErrorKind};
    ///
    /// assert_eq!(DepSpec::parse("A,B")?.as_slice(), ["A", "B"]);
    /// assert_eq!(DepSpec::parse("A, , B").unwrap_err().kind, ErrorKind::EmptyToken);
    /// assert_eq!(DepSpec::parse("A, A").unwrap_err().span.range(), 3..4);
    /// # Ok::<(), laige_depspec::ParseError>(())
    /// ```
    pub fn parse(spec: &'a str) -> Result<Self, ParseError> {
        let bytes = spec.as_bytes();
        let mut out = DepSpec {
            tokens: ArrayVec::new(),
        };
        let mut prints = ArrayVec::<u64, MAX_DEPENDENCIES>::new();
        let mut seg_start = 0;
        loop {
            let (seg_end, last) = match find_comma(&bytes[seg_start..]) {
                Some(i) => (seg_start + i, false),
                None => (bytes.len(), true),
            };
            let mut start = seg_start;
            let mut end = seg_end;
            while start < end && is_trimmed(bytes[start]) {
                start += 1;
            }
            while end > start && is_trimmed(bytes[end - 1]) {
                end -= 1;
            }
            let position = out.len();
            if start == end {
                if last && seg_start == 0 {
                    // No comma at all and nothing but whitespace: no dependencies.
                    return Ok(out);
                }
                return Err(ParseError::new(
                    ErrorKind::EmptyToken,
                    seg_start,
                    seg_start,
                    position,
                ));
            }
            // Both ends sit next to an ASCII byte (or at an end of `spec`): char boundaries.
            let token = &spec[start..end];
            // Compare cheap fingerprints first: a spec of 16 same-length names would
            // otherwise cost 120 byte comparisons.
            let print = fingerprint(token.as_bytes());
            if prints
                .iter()
                .zip(out.as_slice())
                .any(|(&p, &t)| p == print && t == token)
            {
                return Err(ParseError::new(
                    ErrorKind::DuplicateToken,
                    start,
                    end,
                    position,
                ));
            }
            if position == MAX_DEPENDENCIES {
                return Err(ParseError::new(ErrorKind::TooMany, start, end, position));
            }
            out.tokens.push(token);
            prints.push(print);
            if last {
                return Ok(out);
            }
            seg_start = seg_end + 1;
        }
    }

    /// The tokens, in spec order.
    #[inline]
    pub fn as_slice(&self) -> &[&'a str] {
        &self.tokens
    }

    /// The number of tokens (at most [`MAX_DEPENDENCIES`]).
    #[inline]
    pub const fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the spec lists no dependencies.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Iterates over the tokens, in spec order.
    #[inline]
    pub fn iter(&self) -> core::iter::Copied<core::slice::Iter<'_, &'a str>> {
        self.as_slice().iter().copied()
    }

    /// Whether some token equals `name` (exact bytes, case-sensitive).
    #[inline]
    pub fn contains(&self, name: &str) -> bool {
        self.as_slice().contains(&name)
    }

    /// The 0-based index of the token equal to `name` (exact bytes, case-sensitive), if any.
    #[inline]
    pub fn position(&self, name: &str) -> Option<usize> {
        self.as_slice().iter().position(|&t| t == name)
    }
}

impl<'s, 'a> IntoIterator for &'s DepSpec<'a> {
    type Item = &'a str;
    type IntoIter = core::iter::Copied<core::slice::Iter<'s, &'a str>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Shows only the used tokens, e.g. `DepSpec(["Spawner", "Movement"])`.
impl fmt::Debug for DepSpec<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DepSpec").field(&self.as_slice()).finish()
    }
}

/// The index of the first comma in `bytes`.
///
/// It reads whole words, the last one overlapping the one before (or two overlapping
/// halves below 8 bytes), where a byte loop, or `memchr` with its setup, takes several
/// instructions per byte: every registration scans its name and its `depends_on` spec.
#[inline]
fn find_comma(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().expect("4 bytes"),
        ))
    };
    if len >= 8 {
        let mut at = 0;
        while at + 8 < len {
            if let Some(i) = first_comma(word(at)) {
                return Some(at + i);
            }
            at += 8;
        }
        // A comma before `at` would have been found: the first one here is the first.
        first_comma(word(len - 8)).map(|i| len - 8 + i)
    } else if len >= 4 {
        // Bytes 0..4 in the low half, bytes len-4..len in the high half.
        first_comma(half(0) | half(len - 4) << 32)
            .map(|i| if i < 4 { i } else { len - 4 + (i - 4) })
    } else {
        bytes.iter().position(|&b| b == b',')
    }
}

/// The index of the lowest comma byte in `word` (little-endian byte order).
fn first_comma(word: u64) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const COMMAS: u64 = u64::from_ne_bytes([b','; 8]);
    // The classic zero-byte test on `word ^ COMMAS`: a borrow can mark a byte above a
    // zero byte too, never one below, so the lowest mark is exact.
    let x = word ^ COMMAS;
    let marks = x.wrapping_sub(ONES) & !x & HIGHS;
    (marks != 0).then(|| marks.trailing_zeros() as usize / 8)
}

/// A quick fingerprint of a token: its length and its first, middle and last bytes.
/// Equal tokens have equal fingerprints; unequal ones usually differ, so a spec of 16
/// same-length names does not cost 120 byte-wise comparisons.
fn fingerprint(token: &[u8]) -> u64 {
    match token {
        [] => 0,
        [first, .., last] | [first @ last] => {
            let middle = token[token.len() / 2];
            (token.len() as u64)
                ^ u64::from(*first) << 32
                ^ u64::from(middle) << 40
                ^ u64::from(*last) << 48
        }
    }
}

#[cfg(test)]
mod tests {
    use super::find_comma;

    /// Every length up to 40 (the byte-wise, half-word and word paths, and an overlapping
    /// last word), a comma at every position, a second comma at every later one, and
    /// bytes the word test could confuse with a comma around them.
    #[test]
    fn find_comma_finds_the_first_comma() {
        for filler in [b'a', b'-', b'+', 0xAC, 0x01, 0x00] {
            let mut bytes = [filler; 40];
            for len in 0..=bytes.len() {
                assert_eq!(find_comma(&bytes[..len]), None, "len {len}");
                for first in 0..len {
                    bytes[first] = b',';
                    assert_eq!(find_comma(&bytes[..len]), Some(first), "len {len}");
                    for second in first + 1..len {
                        bytes[second] = b',';
                        assert_eq!(find_comma(&bytes[..len]), Some(first), "len {len}");
                        bytes[second] = filler;
                    }
                    bytes[first] = filler;
                }
            }
        }
    }
}
