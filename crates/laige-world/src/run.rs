//! Running systems on the World: scheduling, the sequential tick, and the parallel tick.
