//! The library's fixed-point golden hash test, compiled here without the library's dev-dependencies (see the crate docs).

#[path = "../../inbetween/tests/determinism.rs"]
mod determinism;
