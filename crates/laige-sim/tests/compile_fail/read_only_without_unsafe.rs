//! Marking a query read-only lets any number of its items coexist: it needs `unsafe impl`.
use laige_sim::world::ReadOnlyQueryData;

struct Writer;

impl ReadOnlyQueryData for Writer {}

fn main() {}
