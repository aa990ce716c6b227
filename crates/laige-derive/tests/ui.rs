//! What the derives refuse, with the messages they give (trybuild; `.stderr` beside each case
//! under `tests/ui/`).

#[test]
fn derive_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
