//! The judge's calibration thresholds and second pass, as flags of the
//! commands that review sessions (`serve`, `run`, `demo`).

use agenteval_engine::calibration::JudgePolicy;

#[derive(clap::Args, Debug, Clone)]
pub struct JudgeFlags {
    /// Kappa (linearly weighted, judge vs people's blind labels) from which a judge criterion counts as calibrated.
    #[arg(long, default_value_t = 0.6)]
    pub calibration_kappa: f64,
    /// Blind labels a criterion needs before it can count as calibrated.
    #[arg(long, default_value_t = 30)]
    pub calibration_items: u32,
    /// Reviews each judged session twice (rounds reversed, rubric reworded) and reports the judge's self-agreement.
    #[arg(long)]
    pub judge_second_pass: bool,
    /// Self-agreement (share of equal scores between the passes) below which the judge contradicts itself.
    #[arg(long, default_value_t = 0.8)]
    pub min_self_agreement: f64,
}

impl JudgeFlags {
    pub fn policy(&self) -> JudgePolicy {
        JudgePolicy {
            min_kappa: self.calibration_kappa,
            min_items: self.calibration_items,
            second_pass: self.judge_second_pass,
            min_self_agreement: self.min_self_agreement,
        }
    }
}
