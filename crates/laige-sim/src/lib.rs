//! laige-sim (work in progress).
