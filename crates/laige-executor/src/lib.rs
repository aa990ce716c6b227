//! laige-executor (work in progress).
