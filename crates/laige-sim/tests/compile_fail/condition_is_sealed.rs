// A run condition is a read-only typed system or a combination of them: no type may claim to
// be one by hand, which would let it skip the registration check that it only reads.
use laige_sim::prelude::*;

struct AlwaysTrue;

impl Condition<()> for AlwaysTrue {}

fn main() {}
