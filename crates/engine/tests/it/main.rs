//! Engine integration tests: real SQLite in temp dirs, real HTTP on 127.0.0.1.

mod audit;
mod calibration;
mod channels;
mod checks;
mod clean_findings;
mod demo_agent;
mod exploration;
mod explore;
mod fault_server;
mod fixed;
mod judge;
mod paging;
mod patrol_agent;
mod provenance;
mod real_model;
mod report;
mod scenarios;
mod seeds;
mod simulator_faults;
mod store;
mod structured;
mod support;
mod target_probe;
mod targets;
mod traces;
mod virtual_user;
