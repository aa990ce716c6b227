//! laige-runner (work in progress).
