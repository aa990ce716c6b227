//! Property tests for `DepSpec::parse`: no panics, round trips, and agreement with a std model.

use std::ops::Range;

use laige_depspec::{DepSpec, ErrorKind, MAX_DEPENDENCIES, is_token};
use proptest::prelude::*;

/// The four bytes a token is trimmed of.
fn is_trimmed(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Byte offset of `part` (a subslice) within `whole`.
fn offset(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// The outcome, with tokens as byte ranges, in a form both the parser and the model produce.
type Outcome = Result<Vec<Range<usize>>, (ErrorKind, usize, Range<usize>)>;

/// A reference model written with std, straight from the rules.
fn model(spec: &str) -> Outcome {
    if spec.trim_matches(is_trimmed).is_empty() {
        return Ok(Vec::new());
    }
    let mut tokens: Vec<&str> = Vec::new();
    let mut ranges = Vec::new();
    for (i, raw) in spec.split(',').enumerate() {
        let token = raw.trim_matches(is_trimmed);
        if token.is_empty() {
            let at = offset(spec, raw);
            return Err((ErrorKind::EmptyToken, i, at..at));
        }
        let at = offset(spec, token)..offset(spec, token) + token.len();
        if tokens.contains(&token) {
            return Err((ErrorKind::DuplicateToken, i, at));
        }
        if tokens.len() == 16 {
            return Err((ErrorKind::TooMany, i, at));
        }
        tokens.push(token);
        ranges.push(at);
    }
    Ok(ranges)
}

/// Runs the parser, checks what must hold of any outcome, and returns it as an [`Outcome`].
fn run(spec: &str) -> Outcome {
    match DepSpec::parse(spec) {
        Ok(deps) => {
            assert!(deps.len() <= MAX_DEPENDENCIES);
            Ok(deps
                .iter()
                .map(|t| {
                    assert!(!t.is_empty());
                    assert!(!t.starts_with(is_trimmed) && !t.ends_with(is_trimmed));
                    assert!(!t.contains(','));
                    let at = offset(spec, t);
                    assert!(at + t.len() <= spec.len());
                    at..at + t.len()
                })
                .collect())
        }
        Err(err) => {
            assert!(err.span.start <= err.span.end && err.span.end <= spec.len());
            assert!(spec.is_char_boundary(err.span.start) && spec.is_char_boundary(err.span.end));
            // Displaying never panics, with or without the spec.
            let plain = err.to_string();
            let quoted = err.display_with(spec).to_string();
            assert!(!plain.is_empty() && !quoted.is_empty());
            assert!(err.token(spec).is_some());
            Err((err.kind, err.position, err.span.range()))
        }
    }
}

/// A tiny xorshift, so large inputs come from a proptest-chosen seed without a huge value tree.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// About 1 MiB drawn from `alphabet` with a seeded generator.
fn big_input(seed: u64, alphabet: &[char]) -> String {
    let mut state = seed | 1;
    let mut s = String::with_capacity(1 << 20);
    while s.len() < 1 << 20 {
        let pick = (xorshift(&mut state) % alphabet.len() as u64) as usize;
        s.push(alphabet[pick]);
    }
    s
}

proptest! {
    #[test]
    fn never_panics_on_any_string(s in any::<String>()) {
        let _ = run(&s);
    }

    #[test]
    fn never_panics_on_printable_strings(s in "\\PC*") {
        let _ = run(&s);
    }

    #[test]
    fn never_panics_on_comma_heavy_strings(s in "[,, ,\t\r\n\0a-cé移\u{a0}]{0,200}") {
        let _ = run(&s);
    }

    #[test]
    fn never_panics_on_lossy_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = run(&s);
    }

    #[test]
    fn round_trips_well_formed_names(
        names in prop::collection::btree_set("[A-Za-z_][A-Za-z0-9_]{0,12}", 0..=MAX_DEPENDENCIES)
            .prop_map(|set| set.into_iter().collect::<Vec<_>>())
            .prop_shuffle(),
        pads in prop::collection::vec(("[ \t\r\n]{0,3}", "[ \t\r\n]{0,3}"), MAX_DEPENDENCIES),
    ) {
        let spec = names
            .iter()
            .zip(&pads)
            .map(|(name, (left, right))| format!("{left}{name}{right}"))
            .collect::<Vec<_>>()
            .join(",");
        let deps = DepSpec::parse(&spec).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(deps.as_slice(), names.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn matches_model_on_small_alphabet(s in "[AB, \t]{0,64}") {
        prop_assert_eq!(run(&s), model(&s));
    }

    #[test]
    fn is_token_is_what_parses_to_itself(s in "[AB, \t\n\u{a0}]{0,8}") {
        let parses_to_itself = DepSpec::parse(&s).is_ok_and(|deps| deps.as_slice() == [s.as_str()]);
        prop_assert_eq!(is_token(&s), parses_to_itself, "{:?}", s);
    }

    #[test]
    fn matches_model_on_joined_tokens(
        tokens in prop::collection::vec("[AB \t\r\n]{0,4}", 0..24),
    ) {
        let s = tokens.join(",");
        prop_assert_eq!(run(&s), model(&s));
    }

    /// Mostly distinct tokens around the 16 bound, with an optional repeat or empty token
    /// spliced in, so `TooMany` and its ordering against the other kinds get exercised.
    #[test]
    fn matches_model_around_the_bound(
        distinct in prop::collection::btree_set("[A-D]{1,4}", 0..30)
            .prop_map(|set| set.into_iter().collect::<Vec<_>>())
            .prop_shuffle(),
        splice in (0usize..3, any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        pad in "[ \t]{0,2}",
    ) {
        let mut tokens: Vec<String> = distinct.iter().map(|t| format!("{pad}{t}")).collect();
        let (what, at, from) = splice;
        let at = at.index(tokens.len() + 1);
        match what {
            1 if !tokens.is_empty() => {
                let earlier = tokens[from.index(tokens.len())].clone();
                tokens.insert(at, earlier);
            }
            2 => tokens.insert(at, pad.clone()),
            _ => {}
        }
        let s = tokens.join(",");
        prop_assert_eq!(run(&s), model(&s));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    #[test]
    fn one_mib_of_random_bytes(seed in any::<u64>()) {
        let s = big_input(seed, &['a', ',', ' ', '\0', 'é']);
        prop_assert_eq!(run(&s), model(&s));
        // Fewer commas and no repeats so the scan reaches deep into the input.
        let s = big_input(seed, &['a', 'b', 'c', 'd', ' ', '\t', 'é', '\0']);
        prop_assert_eq!(run(&s), model(&s));
    }
}

#[test]
fn one_mib_shapes() {
    let mib = 1 << 20;
    let cases = [
        " ".repeat(mib),
        "x".repeat(mib),
        ",".repeat(mib),
        "A,".repeat(mib / 2),
        format!("{}, B", "A".repeat(mib)),
        format!("{},{}", "é".repeat(mib / 4), "é".repeat(mib / 4)),
    ];
    for s in &cases {
        assert_eq!(run(s), model(s));
    }
    assert_eq!(run(&cases[0]), Ok(vec![]));
    assert_eq!(run(&cases[1]), Ok(std::iter::once(0..mib).collect()));
    assert_eq!(run(&cases[2]), Err((ErrorKind::EmptyToken, 0, 0..0)));
    assert_eq!(run(&cases[3]), Err((ErrorKind::DuplicateToken, 1, 2..3)));
}

#[test]
fn model_sanity() {
    // The model itself, on the brief's cases, so a wrong model cannot hide a wrong parser.
    assert_eq!(model(""), Ok(vec![]));
    assert_eq!(model(" TrimA ,  TrimB "), Ok(vec![1..6, 10..15]));
    assert_eq!(model("A,"), Err((ErrorKind::EmptyToken, 1, 2..2)));
    assert_eq!(model("A, A"), Err((ErrorKind::DuplicateToken, 1, 3..4)));
    let seventeen = (0..17)
        .map(|i| format!("Dep{i:03}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert_eq!(model(&seventeen), Err((ErrorKind::TooMany, 16, 128..134)));
}
