//! A query element says what it touches; getting that wrong is undefined behaviour, so
//! implementing `QueryData` needs `unsafe impl`.
use laige_sim::world::QueryData;

struct Everything;

impl QueryData for Everything {}

fn main() {}
