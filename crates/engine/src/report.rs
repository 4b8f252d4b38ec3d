//! Reports. (Implementation in progress.)
