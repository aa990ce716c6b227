//! laige-diag (work in progress).
