//! Engine integration tests: real SQLite in temp dirs, real HTTP on 127.0.0.1.

mod audit;
mod channels;
mod checks;
mod demo_agent;
mod exploration;
mod fault_server;
mod fixed;
mod judge;
mod patrol_agent;
mod real_model;
mod report;
mod scenarios;
mod store;
mod support;
mod target_probe;
mod virtual_user;
