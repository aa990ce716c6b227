//! laige-depspec (work in progress).
