//! What the store's test binaries share.

// Each test binary includes this module and uses part of it.
#![allow(dead_code)]

pub mod postgres;
