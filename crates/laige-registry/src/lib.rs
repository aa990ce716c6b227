//! laige-registry (work in progress).
