//! What must not compile: each case in `tests/compile_fail/` is a forgery the API refuses
//! (a made-up location, a forged function pointer, a `Bundle` without `unsafe`, ...), with
//! the compiler's error checked in beside it (`.stderr`).

#[test]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");
}
