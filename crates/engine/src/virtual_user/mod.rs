//! The virtual user. (Implementation in progress.)
