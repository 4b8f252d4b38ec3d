//! Derives a scenario pack from a skill manifest. (Implementation in progress.)
