//! FNV-1a 64: the repository-wide known-answer hash.

/// FNV-1a 64-bit offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a 64 hasher. The laige convention feeds integers as big-endian `u64` words,
/// which is what [`Fnv1a64::write_u64`] does; known-answer values depend on it.
///
/// ```
/// use laige_registry::Fnv1a64;
/// let mut h = Fnv1a64::new();
/// h.write_bytes(b"a");
/// assert_eq!(h.finish(), 0xaf63dc4c8601ec8c);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a64 {
    state: u64,
}

impl Default for Fnv1a64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv1a64 {
    /// A hasher at the offset basis.
    pub const fn new() -> Self {
        Self { state: FNV_OFFSET }
    }

    /// Feeds raw bytes.
    #[inline]
    pub const fn write_bytes(&mut self, bytes: &[u8]) {
        // The state stays in a local so the byte loop runs in a register.
        let mut state = self.state;
        let mut i = 0;
        while i < bytes.len() {
            state ^= bytes[i] as u64;
            state = state.wrapping_mul(FNV_PRIME);
            i += 1;
        }
        self.state = state;
    }

    /// Feeds `value` as 8 big-endian bytes (the laige convention).
    #[inline]
    pub const fn write_u64(&mut self, value: u64) {
        self.write_bytes(&value.to_be_bytes());
    }

    /// The hash so far.
    pub const fn finish(&self) -> u64 {
        self.state
    }
}

/// FNV-1a 64 of `bytes`.
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::new();
    h.write_bytes(bytes);
    h.finish()
}
