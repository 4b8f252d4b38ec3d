//! Layer 3, the operations: `impl Platform`, one feature a module. Each
//! operation of the API is one method of [`platform::Platform`]; the shells
//! parse their input, call it and map the result. Operations talk to
//! targets through the channels and persist through the store.

pub mod audit;
pub mod calibration;
pub mod campaign;
pub mod checks;
pub mod exchange;
pub mod exploration;
pub mod fixed;
pub mod judge;
pub mod keys;
pub mod office;
pub mod paging;
pub mod patrol_agent;
pub mod platform;
pub mod provenance;
pub mod review;
pub mod role_models;
pub mod scenario;
pub mod structured;
pub mod target;
pub mod target_probe;
pub mod tool_player;
pub mod traces;
pub mod virtual_user;
