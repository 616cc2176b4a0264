//! Nothing but a home for `tests/golden.rs`: the library's determinism test (`crates/inbetween/tests/determinism.rs`) built against the library alone, so CI can run it in the debug profile in seconds (`cargo test -p inbetween-determinism`) and compare with the release run.
#![forbid(unsafe_code)]
#![no_std]
