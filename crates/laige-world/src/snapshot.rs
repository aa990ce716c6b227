//! Versioned components: the value each had at the end of the previous tick, for `ReadSnapshot`.
