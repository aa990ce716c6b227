//! A small Rust lexer, just precise enough for the lint rules.
//!
//! It knows comments (line, nested block), string literals (plain, byte, C, raw), char literals and
//! lifetimes, so that a word inside a comment or a string never counts as a token.
//! It does not validate anything: malformed input still yields tokens.

/// What a token is, as far as the lint rules care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokKind {
    /// An identifier or keyword (raw identifiers lose their `r#`).
    Ident(String),
    /// One punctuation character.
    Punct(char),
    /// A string, char or number literal, or a lifetime.
    Literal,
}

/// A token and the 0-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tok {
    /// The token.
    pub kind: TokKind,
    /// The 0-based line number.
    pub line: usize,
}

/// What one source line holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInfo {
    /// The first character of the first code token that touches the line (`#` for an attribute).
    pub first_code: Option<char>,
    /// The text of all comments on the line, concatenated.
    pub comment: String,
}

impl LineInfo {
    /// Whether the line holds neither code nor comment.
    pub fn is_blank(&self) -> bool {
        self.first_code.is_none() && self.comment.trim().is_empty()
    }
}

/// The tokens and per-line facts of one file.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    /// The code tokens, in order.
    pub tokens: Vec<Tok>,
    /// One entry per line of the file.
    pub lines: Vec<LineInfo>,
}

impl Lexed {
    /// Whether the token at `idx` is the identifier `word`.
    pub fn is_ident(&self, idx: usize, word: &str) -> bool {
        matches!(self.tokens.get(idx), Some(Tok { kind: TokKind::Ident(it), .. }) if it == word)
    }

    /// Whether the token at `idx` is the punctuation `c`.
    pub fn is_punct(&self, idx: usize, c: char) -> bool {
        matches!(self.tokens.get(idx), Some(Tok { kind: TokKind::Punct(it), .. }) if *it == c)
    }
}

struct Lexer<'a> {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    out: &'a mut Lexed,
}

/// Lexes `text`.
pub fn lex(text: &str) -> Lexed {
    let mut res = Lexed {
        tokens: Vec::new(),
        lines: vec![LineInfo::default(); text.lines().count() + 1],
    };
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        pos: 0,
        line: 0,
        out: &mut res,
    };
    lexer.run();
    res
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    /// Consumes identifier characters (letters, digits, `_`).
    fn skip_word(&mut self) {
        while self
            .peek(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.bump();
        }
    }

    /// Consumes identifier characters and returns them.
    fn word(&mut self) -> String {
        let start = self.pos;
        self.skip_word();
        self.chars[start..self.pos].iter().collect()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            if self.out.lines.len() <= self.line {
                self.out.lines.push(LineInfo::default());
            }
        }
        Some(c)
    }

    fn mark_code(&mut self, line: usize, c: char) {
        let info = &mut self.out.lines[line];
        info.first_code.get_or_insert(c);
    }

    fn push(&mut self, kind: TokKind, line: usize, first: char) {
        self.mark_code(line, first);
        // Multi-line literals make every line they cover a code line.
        for it in line + 1..=self.line {
            self.mark_code(it, first);
        }
        self.out.tokens.push(Tok { kind, line });
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            let line = self.line;
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                '"' => {
                    self.quoted('"');
                    self.push(TokKind::Literal, line, '"');
                }
                '\'' => self.char_or_lifetime(),
                c if c.is_ascii_digit() => {
                    while let Some(c) = self.peek(0) {
                        let fraction =
                            c == '.' && self.peek(1).is_some_and(|it| it.is_ascii_digit());
                        if !(c.is_alphanumeric() || c == '_' || fraction) {
                            break;
                        }
                        self.bump();
                    }
                    self.push(TokKind::Literal, line, c);
                }
                c if c.is_alphabetic() || c == '_' => self.ident_or_prefixed_literal(),
                c => {
                    self.bump();
                    self.push(TokKind::Punct(c), line, c);
                }
            }
        }
    }

    fn line_comment(&mut self) {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            text.push(c);
            self.bump();
        }
        self.out.lines[self.line].comment.push_str(&text);
    }

    fn block_comment(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            if c == '/' && self.peek(1) == Some('*') {
                depth += 1;
                self.comment_char('/');
                self.comment_char('*');
            } else if c == '*' && self.peek(1) == Some('/') {
                depth -= 1;
                self.comment_char('*');
                self.comment_char('/');
                if depth == 0 {
                    return;
                }
            } else {
                self.comment_char(c);
            }
        }
    }

    fn comment_char(&mut self, c: char) {
        if c != '\n' {
            self.out.lines[self.line].comment.push(c);
        }
        self.bump();
    }

    /// Consumes a literal delimited by `quote`, honouring backslash escapes.
    fn quoted(&mut self, quote: char) {
        self.bump();
        while let Some(c) = self.bump() {
            if c == '\\' {
                self.bump();
            } else if c == quote {
                return;
            }
        }
    }

    /// Consumes `#*"…"#*` starting at the first `#` or `"`.
    fn raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump();
        while let Some(c) = self.bump() {
            if c == '"' && (0..hashes).all(|it| self.peek(it) == Some('#')) {
                for _ in 0..hashes {
                    self.bump();
                }
                return;
            }
        }
    }

    fn char_or_lifetime(&mut self) {
        let line = self.line;
        let is_char =
            self.peek(1) == Some('\\') || (self.peek(1).is_some() && self.peek(2) == Some('\''));
        if is_char {
            self.quoted('\'');
        } else {
            self.bump();
            self.skip_word();
        }
        self.push(TokKind::Literal, line, '\'');
    }

    fn ident_or_prefixed_literal(&mut self) {
        let line = self.line;
        let first = self.chars[self.pos];
        let word = self.word();
        let next = self.peek(0);
        let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
        if raw_prefix && (next == Some('"') || (next == Some('#') && self.raw_string_follows())) {
            self.raw_string();
            self.push(TokKind::Literal, line, first);
        } else if matches!(word.as_str(), "b" | "c") && next == Some('"') {
            self.quoted('"');
            self.push(TokKind::Literal, line, first);
        } else if word == "b" && next == Some('\'') {
            self.quoted('\'');
            self.push(TokKind::Literal, line, first);
        } else if word == "r" && next == Some('#') {
            // A raw identifier such as `r#type`.
            self.bump();
            let word = self.word();
            self.push(TokKind::Ident(word), line, first);
        } else {
            self.push(TokKind::Ident(word), line, first);
        }
    }

    fn raw_string_follows(&self) -> bool {
        let mut ahead = 0;
        while self.peek(ahead) == Some('#') {
            ahead += 1;
        }
        self.peek(ahead) == Some('"')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(text: &str) -> Vec<String> {
        lex(text)
            .tokens
            .into_iter()
            .filter_map(|it| match it.kind {
                TokKind::Ident(word) => Some(word),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_and_strings_hide_words() {
        let text = r####"
            // unsafe in a comment
            /* unsafe /* nested unsafe */ still comment */
            let a = "unsafe { }";
            let b = r#"unsafe "quoted" "#;
            let c = b"unsafe";
            let d = '"'; let e = '\''; let f: &'static str = "x";
            real
        "####;
        assert_eq!(
            idents(text),
            [
                "let", "a", "let", "b", "let", "c", "let", "d", "let", "e", "let", "f", "str",
                "real"
            ]
        );
    }

    #[test]
    fn line_facts() {
        let lexed = lex("#[attr]\n// SAFETY: fine\n\nunsafe { x } // trailing\n");
        assert_eq!(lexed.lines[0].first_code, Some('#'));
        assert!(lexed.lines[1].first_code.is_none());
        assert!(lexed.lines[1].comment.contains("SAFETY:"));
        assert!(lexed.lines[2].is_blank());
        assert_eq!(lexed.lines[3].first_code, Some('u'));
        assert!(lexed.lines[3].comment.contains("trailing"));
        assert_eq!(lexed.tokens[4].line, 3);
    }

    #[test]
    fn raw_identifiers_and_ranges() {
        assert_eq!(idents("r#type 0..n 1.5f32"), ["type", "n"]);
    }
}
