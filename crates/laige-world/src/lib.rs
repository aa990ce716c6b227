//! laige-world (work in progress).
