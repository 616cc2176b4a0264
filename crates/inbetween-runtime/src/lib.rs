//! inbetween-runtime: the compiled animation stream (`.ibs`), its validation, and the players that advance it by additions.
//!
//! This crate is everything a game needs to play animation compiled by `inbetween` (the authoring
//! crate: documents, exact evaluation, the compiler, imports and exports), and nothing else:
//!
//! - [`stream`]: the `.ibs` byte format — reading ([`stream::Stream::from_bytes`] validates a
//!   stream once, after which nothing can fail), writing, and per-piece bounds;
//! - [`player`]: [`player::TrackPlayer`], one track played by forward-difference additions, with
//!   seek, loop, reverse and other rates;
//! - [`batch`]: [`batch::Bank`], many tracks of a stream played together in structure-of-arrays
//!   lanes (the only place this crate allocates, in [`batch::Bank::new`]);
//! - [`math`]: float math through `std` or `libm`.
//!
//! `no_std` with `alloc`; the `std` feature (default) or `libm` supplies the float math.
// `unsafe` only where a `// SAFETY:` comment proves it sound, each site allowed by name.
#![deny(unsafe_code)]
#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

extern crate alloc;

pub mod batch;
pub mod math;
mod pair;
pub mod player;
pub mod stream;
