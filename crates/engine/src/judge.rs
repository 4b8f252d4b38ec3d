//! (Implementation in progress.)
