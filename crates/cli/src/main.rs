//! `agenteval`: the command line of AgentEval.

mod scenarios_cmd;

fn main() {
    let _ = (scenarios_cmd::check, scenarios_cmd::from_skill);
}
