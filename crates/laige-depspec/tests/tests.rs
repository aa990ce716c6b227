//! Data-driven cases, `DepSpec` accessors and error texts for `laige-depspec`.

use std::ops::Range;

use laige_depspec::{DepSpec, ErrorKind, MAX_DEPENDENCIES, ParseError, Span};

/// What a case expects `DepSpec::parse` to return.
#[derive(Debug)]
enum Expect<'e> {
    Ok(&'e [&'e str]),
    Err(ErrorKind, usize, Range<usize>),
}
use Expect::{Err as Fails, Ok as Parses};

/// Parses `input` and compares the result with `expected`, plus the invariants every result keeps.
#[track_caller]
fn check(input: &str, expected: Expect<'_>) {
    let got = DepSpec::parse(input);
    match (got, expected) {
        (Ok(deps), Parses(tokens)) => {
            assert_eq!(deps.as_slice(), tokens, "tokens of {input:?}");
            assert_eq!(deps.len(), tokens.len());
            assert_eq!(deps.is_empty(), tokens.is_empty());
            assert!(deps.iter().eq(tokens.iter().copied()));
            for (i, t) in tokens.iter().enumerate() {
                assert!(deps.contains(t));
                assert_eq!(deps.position(t), Some(i));
            }
            // Tokens borrow the input.
            let base = input.as_ptr() as usize;
            for t in deps.iter() {
                let at = t.as_ptr() as usize;
                assert!(at >= base && at + t.len() <= base + input.len());
            }
        }
        (Err(err), Fails(kind, position, span)) => {
            assert_eq!(
                (err.kind, err.position, err.span.range()),
                (kind, position, span),
                "error of {input:?}"
            );
            check_message(input, &err);
        }
        (got, expected) => panic!("{input:?}: got {got:?}, expected {expected:?}"),
    }
}

/// Display texts: lower case start, no trailing period, say where, and (with the spec) quote the token.
#[track_caller]
fn check_message(input: &str, err: &ParseError) {
    let plain = err.to_string();
    let quoted = err.display_with(input).to_string();
    for text in [&plain, &quoted] {
        assert!(text.starts_with(|c: char| c.is_ascii_lowercase()), "{text}");
        assert!(!text.ends_with('.'), "{text}");
        assert!(!text.contains('\n'), "{text}");
        let where_ = format!("bytes {}..{}", err.span.start, err.span.end);
        assert!(text.contains(&where_), "{text} lacks {where_}");
        let token = format!("token {}", err.position);
        assert!(text.contains(&token), "{text} lacks {token}");
    }
    let fix = match err.kind {
        ErrorKind::EmptyToken => "remove the extra comma",
        ErrorKind::DuplicateToken => "list each system once",
        ErrorKind::TooMany => "at most 16",
        other => panic!("unexpected kind {other:?}"),
    };
    assert!(plain.contains(fix), "{plain} lacks {fix}");
    let offending = &input[err.span.range()];
    assert_eq!(err.token(input), Some(offending));
    if err.kind != ErrorKind::EmptyToken
        && offending.len() <= 64
        && !offending.contains(char::is_control)
    {
        let q = format!("`{offending}`");
        assert!(quoted.contains(&q), "{quoted} lacks {q}");
        assert!(!plain.contains(&q), "{plain} quotes {q}");
    }
}

/// `n` distinct names `Dep000`, `Dep001`, ... joined by `", "` (8 bytes per token).
fn deps(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("Dep{i:03}")).collect()
}

#[test]
fn blank_specs_list_nothing() {
    check("", Parses(&[]));
    check(" ", Parses(&[]));
    check("   ", Parses(&[]));
    check("\t\r\n ", Parses(&[]));
    check("\n", Parses(&[]));
}

#[test]
fn well_formed_specs() {
    check("A", Parses(&["A"]));
    check(" A ", Parses(&["A"]));
    check("A,B", Parses(&["A", "B"]));
    check(" TrimA ,  TrimB ", Parses(&["TrimA", "TrimB"]));
    check("SchNoop, SchWriteVel", Parses(&["SchNoop", "SchWriteVel"]));
    check("Spawner, Movement", Parses(&["Spawner", "Movement"]));
    check("\tA\t,\rB\r\n", Parses(&["A", "B"]));
    check("A B, C", Parses(&["A B", "C"]));
    check("a, A", Parses(&["a", "A"]));
    check("A,AB", Parses(&["A", "AB"]));
    check("AB,A", Parses(&["AB", "A"]));
    check("A,a,B,b", Parses(&["A", "a", "B", "b"]));
    check("ns::Sys, ns::Other", Parses(&["ns::Sys", "ns::Other"]));
}

#[test]
fn only_four_ascii_bytes_are_trimmed() {
    check(
        "Bewegung, Kollision, 移動",
        Parses(&["Bewegung", "Kollision", "移動"]),
    );
    check("\u{a0}A", Parses(&["\u{a0}A"]));
    check("\u{a0}", Parses(&["\u{a0}"]));
    check("A,\u{a0}A", Parses(&["A", "\u{a0}A"]));
    check("\u{3000}A\u{3000}", Parses(&["\u{3000}A\u{3000}"]));
    check("\u{b}A", Parses(&["\u{b}A"]));
    check("A\u{c}", Parses(&["A\u{c}"]));
    check("A\0B, \0", Parses(&["A\0B", "\0"]));
    check("\0", Parses(&["\0"]));
    check("\0,\0\0", Parses(&["\0", "\0\0"]));
}

#[test]
fn empty_tokens() {
    check("A, , B", Fails(ErrorKind::EmptyToken, 1, 2..2));
    check("A,", Fails(ErrorKind::EmptyToken, 1, 2..2));
    check("A, ", Fails(ErrorKind::EmptyToken, 1, 2..2));
    check("A,\t\r\n", Fails(ErrorKind::EmptyToken, 1, 2..2));
    check(",A", Fails(ErrorKind::EmptyToken, 0, 0..0));
    check(" ,A", Fails(ErrorKind::EmptyToken, 0, 0..0));
    check("A,,B", Fails(ErrorKind::EmptyToken, 1, 2..2));
    check(",", Fails(ErrorKind::EmptyToken, 0, 0..0));
    check(" , ", Fails(ErrorKind::EmptyToken, 0, 0..0));
    check(",,", Fails(ErrorKind::EmptyToken, 0, 0..0));
    check("A,B,C,", Fails(ErrorKind::EmptyToken, 3, 6..6));
    check("移動,", Fails(ErrorKind::EmptyToken, 1, 7..7));
}

#[test]
fn duplicate_tokens() {
    check("A, A", Fails(ErrorKind::DuplicateToken, 1, 3..4));
    check("A,A", Fails(ErrorKind::DuplicateToken, 1, 2..3));
    check("A,B,A", Fails(ErrorKind::DuplicateToken, 2, 4..5));
    check(" A , B ,  A  ", Fails(ErrorKind::DuplicateToken, 2, 10..11));
    check("移動, 移動", Fails(ErrorKind::DuplicateToken, 1, 8..14));
    check("\0,\0", Fails(ErrorKind::DuplicateToken, 1, 2..3));
}

#[test]
fn first_offending_token_wins() {
    // Left to right: the empty token comes first.
    check("A,B,,A", Fails(ErrorKind::EmptyToken, 2, 4..4));
    // The duplicate comes before the trailing comma.
    check("A,A,", Fails(ErrorKind::DuplicateToken, 1, 2..3));
    check("A,B,B,A", Fails(ErrorKind::DuplicateToken, 2, 4..5));
}

#[test]
fn sixteen_is_the_limit() {
    assert_eq!(MAX_DEPENDENCIES, 16);
    let names = deps(16);
    let expected: Vec<&str> = names.iter().map(String::as_str).collect();
    check(&names.join(", "), Parses(&expected));
    check(&names.join(","), Parses(&expected));

    // The 17th distinct token: `Dep016` at bytes 128..134.
    check(
        &deps(17).join(", "),
        Fails(ErrorKind::TooMany, 16, 128..134),
    );
    check(
        &deps(18).join(", "),
        Fails(ErrorKind::TooMany, 16, 128..134),
    );
    check(
        &deps(40).join(", "),
        Fails(ErrorKind::TooMany, 16, 128..134),
    );

    // The duplicate check comes first: a 17th token repeating `Dep003` is a duplicate.
    let mut dup = deps(16);
    dup.push("Dep003".to_owned());
    check(
        &dup.join(", "),
        Fails(ErrorKind::DuplicateToken, 16, 128..134),
    );

    // So does the empty-token check.
    check(
        &format!("{}, ", deps(16).join(", ")),
        Fails(ErrorKind::EmptyToken, 16, 127..127),
    );
}

#[test]
fn dep_spec_accessors() {
    let deps = DepSpec::parse(" Spawner ,Movement").unwrap();
    assert_eq!(deps.len(), 2);
    assert!(!deps.is_empty());
    assert!(deps.contains("Spawner"));
    assert!(!deps.contains("spawner"));
    assert!(!deps.contains(""));
    assert!(!deps.contains(" Spawner "));
    assert_eq!(deps.position("Movement"), Some(1));
    assert_eq!(deps.position("Move"), None);
    let mut seen = Vec::new();
    for name in &deps {
        seen.push(name);
    }
    assert_eq!(seen, ["Spawner", "Movement"]);
    assert_eq!(
        deps.iter().rev().collect::<Vec<_>>(),
        ["Movement", "Spawner"]
    );

    // Clone (an `ArrayVec` is not `Copy`), equality and Debug.
    let copy = deps.clone();
    assert_eq!(copy, deps);
    assert_ne!(copy, DepSpec::parse("Spawner").unwrap());
    assert_eq!(format!("{deps:?}"), r#"DepSpec(["Spawner", "Movement"])"#);

    let empty = DepSpec::parse(" ").unwrap();
    assert_eq!(empty, DepSpec::EMPTY);
    assert_eq!(empty, DepSpec::default());
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.iter().next(), None);
    assert!(!empty.contains(""));
    assert_eq!(empty.position(""), None);
}

#[test]
fn tokens_outlive_the_spec_value() {
    let input = String::from("A, B");
    let first: &str = {
        let deps = DepSpec::parse(&input).unwrap();
        deps.as_slice()[0]
    };
    assert_eq!(first, "A");
}

#[test]
fn error_kind_names() {
    assert_eq!(ErrorKind::EmptyToken.name(), "empty_token");
    assert_eq!(ErrorKind::DuplicateToken.name(), "duplicate_token");
    assert_eq!(ErrorKind::TooMany.name(), "too_many");
}

#[test]
fn error_texts() {
    let err = DepSpec::parse("A, , B").unwrap_err();
    assert_eq!(
        err.to_string(),
        "empty token at bytes 2..2 (token 1): remove the extra comma"
    );
    assert_eq!(err.display_with("A, , B").to_string(), err.to_string());
    assert_eq!(err.token("A, , B"), Some(""));

    let err = DepSpec::parse("A, A").unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate dependency at bytes 3..4 (token 1): list each system once"
    );
    assert_eq!(
        err.display_with("A, A").to_string(),
        "duplicate dependency `A` at bytes 3..4 (token 1): list each system once"
    );

    let spec = deps(17).join(", ");
    let err = DepSpec::parse(&spec).unwrap_err();
    assert_eq!(
        err.display_with(&spec).to_string(),
        "more than 16 dependencies (token 16 `Dep016` at bytes 128..134): \
         a system may list at most 16; run it after a system that already depends on the rest"
    );
    assert_eq!(
        err.to_string(),
        "more than 16 dependencies (token 16 at bytes 128..134): \
         a system may list at most 16; run it after a system that already depends on the rest"
    );
    assert_eq!(err.span.range(), Range::from(err.span));
    let _: &dyn std::error::Error = &err;
}

#[test]
fn error_texts_escape_and_cut_tokens() {
    let err = DepSpec::parse("A\0, A\0").unwrap_err();
    assert_eq!(
        err.display_with("A\0, A\0").to_string(),
        "duplicate dependency `A\\0` at bytes 4..6 (token 1): list each system once"
    );

    // A long non-ASCII token is cut on a char boundary at or below 64 bytes.
    let long = "é".repeat(100);
    let spec = format!("{long},{long}");
    let err = DepSpec::parse(&spec).unwrap_err();
    assert_eq!(
        err.span,
        Span {
            start: 201,
            end: 401
        }
    );
    let text = err.display_with(&spec).to_string();
    assert!(
        text.starts_with(&format!("duplicate dependency `{}...` at", "é".repeat(32))),
        "{text}"
    );

    // A spec that did not produce the error: the token is left out rather than panicking.
    assert_eq!(err.token("short"), None);
    assert_eq!(err.display_with("short").to_string(), err.to_string());
}
