//! Resources: singletons stored in the World (time, input), declared and checked like components.
