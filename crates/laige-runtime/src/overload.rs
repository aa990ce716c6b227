//! The overload ladder: per-system priorities, the levels, and the detector with hysteresis.
//!
//! The detector measures; it only *proposes* a level. Outside lockstep mode the runtime
//! applies a proposal at the next tick boundary; in lockstep mode the caller confirms a level
//! for a given tick and every peer applies it there. What a level skips is a pure function of
//! the level, the tick number and the systems' policies, so peers that agree on the level
//! agree on every skip.

use crate::OverloadOptions;

/// How much a system matters under load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    /// Never throttled or shed.
    Critical,
    /// Never throttled or shed.
    High,
    /// Throttled by its divisor from [`OverloadLevel::THROTTLE`] up.
    #[default]
    Normal,
    /// Throttled like `Normal`, and shed from [`OverloadLevel::SHED`] up when it `can_shed`.
    Low,
}

/// What the ladder may do to one system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemPolicy {
    /// Its priority.
    pub priority: Priority,
    /// Whether a `Low` system may be skipped altogether from [`OverloadLevel::SHED`] up.
    pub can_shed: bool,
    /// From [`OverloadLevel::THROTTLE`] up a `Normal` or `Low` system runs only on ticks
    /// whose number is a multiple of this (1: never throttled).
    pub throttle_divisor: u32,
}

impl Default for SystemPolicy {
    /// `Normal`, not sheddable, never throttled: what every system gets unless told.
    fn default() -> Self {
        Self {
            priority: Priority::Normal,
            can_shed: false,
            throttle_divisor: 1,
        }
    }
}

/// What a level does to a system on one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Run,
    Throttled,
    Shed,
}

impl SystemPolicy {
    /// What `level` does to this system on tick `tick`.
    pub(crate) fn verdict(&self, level: OverloadLevel, tick: u64) -> Verdict {
        if matches!(self.priority, Priority::Critical | Priority::High) {
            return Verdict::Run;
        }
        if level >= OverloadLevel::SHED && self.priority == Priority::Low && self.can_shed {
            return Verdict::Shed;
        }
        let divisor = u64::from(self.throttle_divisor.max(1));
        if level >= OverloadLevel::THROTTLE && !tick.is_multiple_of(divisor) {
            return Verdict::Throttled;
        }
        Verdict::Run
    }
}

/// A rung of the overload ladder: 0 is normal, 1 throttles, 2 sheds as well, and each level
/// above lowers the tick rate by the next multiplier of [`OverloadOptions::multipliers`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OverloadLevel(pub u8);

impl OverloadLevel {
    /// Nothing is skipped; the base rate.
    pub const NORMAL: Self = Self(0);
    /// `Normal` and `Low` systems with a throttle divisor run only every divisor-th tick.
    pub const THROTTLE: Self = Self(1);
    /// As `THROTTLE`, and `Low` systems that `can_shed` do not run.
    pub const SHED: Self = Self(2);

    /// The tick-rate multiplier at this level under `options`: 1 up to `SHED`, then the
    /// multipliers in order.
    pub fn multiplier(self, options: &OverloadOptions) -> u32 {
        match usize::from(self.0).checked_sub(usize::from(Self::SHED.0) + 1) {
            None => 1,
            Some(step) => options.multipliers.get(step).copied().unwrap_or(1),
        }
    }

    /// The highest level `options` allow at base rate `tick_rate`: `SHED` plus every
    /// multiplier that keeps the rate at or above the minimum.
    pub fn highest(options: &OverloadOptions, tick_rate: u32) -> Self {
        let usable = options
            .multipliers
            .iter()
            .take_while(|&&m| tick_rate / m.max(1) >= options.min_tick_rate)
            .count();
        Self(
            Self::SHED
                .0
                .saturating_add(u8::try_from(usable).unwrap_or(u8::MAX)),
        )
    }

    /// A short name: `normal`, `throttle`, `shed`, or `rate/N`.
    pub fn name(self, options: &OverloadOptions) -> LevelName {
        match self {
            Self::NORMAL => LevelName::Normal,
            Self::THROTTLE => LevelName::Throttle,
            Self::SHED => LevelName::Shed,
            _ => LevelName::Rate(self.multiplier(options)),
        }
    }
}

/// How a level reads in telemetry and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelName {
    /// Level 0.
    Normal,
    /// Level 1.
    Throttle,
    /// Level 2.
    Shed,
    /// A rate-modulation level, with its multiplier.
    Rate(u32),
}

impl std::fmt::Display for LevelName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Normal => f.write_str("normal"),
            Self::Throttle => f.write_str("throttle"),
            Self::Shed => f.write_str("shed"),
            Self::Rate(m) => write!(f, "rate/{m}"),
        }
    }
}

/// The overload detector: counts ticks over and under the thresholds and proposes a level.
#[derive(Clone, Debug)]
pub(crate) struct Detector {
    over: u32,
    under: u32,
    highest: OverloadLevel,
}

impl Detector {
    pub(crate) fn new(highest: OverloadLevel) -> Self {
        Self {
            over: 0,
            under: 0,
            highest,
        }
    }

    /// Counts one tick of overrun ratio `ratio` at level `current`, and returns the level it
    /// proposes next (`current` when no count reached its threshold). A tick between the
    /// thresholds keeps both counts; a tick past one threshold resets the other's count.
    pub(crate) fn observe(
        &mut self,
        ratio: f64,
        current: OverloadLevel,
        options: &OverloadOptions,
    ) -> OverloadLevel {
        if !options.enabled {
            return OverloadLevel::NORMAL;
        }
        if ratio > options.escalate_ratio {
            self.over += 1;
            self.under = 0;
        } else if ratio < options.deescalate_ratio {
            self.under += 1;
            self.over = 0;
        }
        if self.over >= options.escalate_ticks.max(1) {
            self.over = 0;
            return OverloadLevel(current.0.saturating_add(1)).min(self.highest);
        }
        if self.under >= options.deescalate_ticks.max(1) {
            self.under = 0;
            return OverloadLevel(current.0.saturating_sub(1));
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ladder_has_seven_levels_at_60_hz() {
        let options = OverloadOptions::default();
        let top = OverloadLevel::highest(&options, 60);
        assert_eq!(top, OverloadLevel(6));
        assert_eq!(top.multiplier(&options), 6);
        assert_eq!(OverloadLevel(3).multiplier(&options), 2);
        assert_eq!(OverloadLevel::SHED.multiplier(&options), 1);
        assert_eq!(top.name(&options).to_string(), "rate/6");
    }

    #[test]
    fn the_minimum_rate_caps_the_multipliers() {
        let options = OverloadOptions::default();
        // 30 Hz: /2 = 15 and /3 = 10 stay at or above 10 Hz; /4 would not.
        assert_eq!(OverloadLevel::highest(&options, 30), OverloadLevel(4));
    }

    #[test]
    fn critical_and_high_are_never_touched() {
        for priority in [Priority::Critical, Priority::High] {
            let policy = SystemPolicy {
                priority,
                can_shed: true,
                throttle_divisor: 4,
            };
            assert_eq!(policy.verdict(OverloadLevel(6), 1), Verdict::Run);
        }
    }

    #[test]
    fn a_throttled_system_runs_on_multiples_of_its_divisor() {
        let policy = SystemPolicy {
            throttle_divisor: 3,
            ..SystemPolicy::default()
        };
        assert_eq!(policy.verdict(OverloadLevel::NORMAL, 1), Verdict::Run);
        assert_eq!(
            policy.verdict(OverloadLevel::THROTTLE, 1),
            Verdict::Throttled
        );
        assert_eq!(policy.verdict(OverloadLevel::THROTTLE, 3), Verdict::Run);
    }

    #[test]
    fn a_low_sheddable_system_is_shed_from_the_shed_level() {
        let policy = SystemPolicy {
            priority: Priority::Low,
            can_shed: true,
            throttle_divisor: 1,
        };
        assert_eq!(policy.verdict(OverloadLevel::THROTTLE, 1), Verdict::Run);
        assert_eq!(policy.verdict(OverloadLevel::SHED, 1), Verdict::Shed);
    }
}
