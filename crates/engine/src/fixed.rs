//! The fixed-plan engine. (Implementation in progress.)
