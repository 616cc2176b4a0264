//! Fuzz target `stream`: runs `harness::stream` (shared with the regression test) on every input.
#![no_main]

#[path = "../../crates/inbetween/tests/fuzz_regressions/harness.rs"]
#[allow(dead_code)] // each target uses one of the harness functions
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::stream(data));
