//! Tests: virtual_user.
