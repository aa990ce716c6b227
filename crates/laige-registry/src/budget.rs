//! A system's time budget: milliseconds, stored exactly as Q16.16 fixed point.

use std::fmt;

/// A time budget in milliseconds, held as a Q16.16 fixed-point number
/// (`raw / 65536` ms), exactly as the laige contract stores it.
///
/// Only a strictly positive budget is valid for registration; 0.5 ms is raw 32768.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Budget {
    raw: i32,
    /// Made from a NaN: raw 0 as the contract stores it, remembered so errors can say so.
    not_a_number: bool,
}

impl Budget {
    /// Raw value of one millisecond.
    pub const ONE_MS_RAW: i32 = 1 << 16;

    /// A budget from its raw Q16.16 value.
    pub const fn from_raw(raw: i32) -> Self {
        Self {
            raw,
            not_a_number: false,
        }
    }

    /// A whole number of milliseconds, saturating at the Q16.16 range.
    pub const fn from_millis(ms: i32) -> Self {
        Self::from_raw(ms.saturating_mul(Self::ONE_MS_RAW))
    }

    /// Milliseconds from an `f32`, rounded to the nearest raw step (ties to even) and
    /// saturating, as the original `fpx16_16::fromFloat`. NaN becomes raw 0 (an invalid
    /// budget), marked as NaN ([`Budget::is_nan`]) so its error says so.
    pub const fn from_millis_f32(ms: f32) -> Self {
        let scaled = ms as f64 * 65536.0;
        let rounded = round_ties_even(scaled);
        // `as` saturates at the i32 range and maps NaN to 0.
        Self {
            raw: rounded as i32,
            not_a_number: ms.is_nan(),
        }
    }

    /// Whether the budget was made from a NaN (its raw value is 0).
    pub const fn is_nan(self) -> bool {
        self.not_a_number
    }

    /// The raw Q16.16 value.
    pub const fn raw(self) -> i32 {
        self.raw
    }

    /// The budget in milliseconds; exact, since every Q16.16 value is an `f64`.
    pub const fn as_millis_f64(self) -> f64 {
        self.raw as f64 / 65536.0
    }

    /// The budget in nanoseconds, rounded down; 0 for an invalid budget.
    pub const fn as_nanos(self) -> u64 {
        if self.raw <= 0 {
            return 0;
        }
        // raw / 65536 ms = raw * 1e6 / 65536 ns; fits u64 for any i32.
        (self.raw as u64 * 1_000_000) >> 16
    }

    /// Whether the budget can be registered: strictly positive.
    pub const fn is_valid(self) -> bool {
        self.raw > 0
    }
}

const fn round_ties_even(x: f64) -> f64 {
    // f64::round_ties_even is not const on stable; floor-based rounding is exact here
    // because |x| < 2^52 for every value that does not saturate anyway.
    if x.is_nan() || x >= 4.0e15 || x <= -4.0e15 {
        return x;
    }
    let floor = x as i64 as f64;
    let floor = if floor > x { floor - 1.0 } else { floor };
    let diff = x - floor;
    let round_up = diff > 0.5 || (diff == 0.5 && (floor as i64) % 2 != 0);
    if round_up { floor + 1.0 } else { floor }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.not_a_number {
            return write!(f, "Budget(NaN, raw {})", self.raw);
        }
        write!(f, "Budget({} ms, raw {})", self.as_millis_f64(), self.raw)
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.not_a_number {
            return f.write_str("NaN ms");
        }
        write!(f, "{} ms", self.as_millis_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_and_fractional_millis_are_exact() {
        assert_eq!(Budget::from_millis(1).raw(), 65536);
        assert_eq!(Budget::from_millis(2).raw(), 131072);
        assert_eq!(Budget::from_millis_f32(0.5).raw(), 32768);
        assert_eq!(Budget::from_millis_f32(1.0), Budget::from_millis(1));
        assert_eq!(Budget::from_raw(32768).as_millis_f64(), 0.5);
        assert_eq!(Budget::from_millis(1).as_nanos(), 1_000_000);
    }

    #[test]
    fn from_f32_rounds_ties_to_even_and_saturates() {
        // 1.5 raw steps → 2, 2.5 raw steps → 2, 3.5 → 4.
        assert_eq!(Budget::from_millis_f32(1.5 / 65536.0).raw(), 2);
        assert_eq!(Budget::from_millis_f32(2.5 / 65536.0).raw(), 2);
        assert_eq!(Budget::from_millis_f32(3.5 / 65536.0).raw(), 4);
        assert_eq!(Budget::from_millis_f32(-2.5 / 65536.0).raw(), -2);
        assert_eq!(Budget::from_millis_f32(1.0e9).raw(), i32::MAX);
        assert_eq!(Budget::from_millis_f32(-1.0e9).raw(), i32::MIN);
        assert_eq!(Budget::from_millis_f32(f32::NAN).raw(), 0);
        assert!(Budget::from_millis_f32(f32::NAN).is_nan());
        assert!(!Budget::from_millis_f32(0.0).is_nan() && !Budget::from_raw(0).is_nan());
    }

    #[test]
    fn only_positive_budgets_are_valid() {
        assert!(Budget::from_raw(1).is_valid());
        assert!(!Budget::from_raw(0).is_valid());
        assert!(!Budget::from_millis(-1).is_valid());
    }
}
