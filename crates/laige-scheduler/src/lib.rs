//! laige-scheduler (work in progress).
