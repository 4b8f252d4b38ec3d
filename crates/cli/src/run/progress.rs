//! What `agenteval run` prints while it works, and the role-model line.

use super::*;

/// Progress on stderr: a bar on a terminal, a plain line at every tenth
/// otherwise (CI logs).
pub(super) struct Progress {
    pub(super) bar: Option<ProgressBar>,
    pub(super) runs: u64,
    pub(super) sessions: u64,
    pub(super) runs_done: AtomicU64,
    pub(super) sessions_done: AtomicU64,
    /// The tenth of the work last reported in plain lines.
    pub(super) last_tenth: Mutex<Option<u64>>,
}

impl Progress {
    pub(super) fn new(runs: u64, sessions: u64) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(runs + sessions);
            bar.set_style(
                ProgressStyle::with_template("  [{bar:40}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        let p = Self {
            bar,
            runs,
            sessions,
            runs_done: AtomicU64::new(0),
            sessions_done: AtomicU64::new(0),
            last_tenth: Mutex::new(None),
        };
        p.show();
        p
    }

    pub(super) fn run_done(&self) {
        self.runs_done.fetch_add(1, Ordering::Relaxed);
        self.show();
    }

    pub(super) fn session_done(&self) {
        self.sessions_done.fetch_add(1, Ordering::Relaxed);
        self.show();
    }

    pub(super) fn line(&self) -> String {
        let mut s = format!(
            "runs {}/{}",
            self.runs_done.load(Ordering::Relaxed),
            self.runs
        );
        if self.sessions > 0 {
            s.push_str(&format!(
                ", exploration sessions {}/{}",
                self.sessions_done.load(Ordering::Relaxed),
                self.sessions
            ));
        }
        s
    }

    pub(super) fn show(&self) {
        let done =
            self.runs_done.load(Ordering::Relaxed) + self.sessions_done.load(Ordering::Relaxed);
        let total = (self.runs + self.sessions).max(1);
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(self.line());
            }
            None => {
                let tenth = done * 10 / total;
                let mut last = self
                    .last_tenth
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if last.is_none_or(|l| tenth > l) {
                    *last = Some(tenth);
                    eprintln!("agenteval: {}", self.line());
                }
            }
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_with_message(self.line());
        }
    }
}

/// The models recorded for a side, for display.
pub fn models_line(m: &ModelsUsed) -> String {
    format!(
        "target {}; user {}; judge {}",
        m.target,
        m.virtual_user.as_deref().unwrap_or("unknown"),
        m.judge.as_deref().unwrap_or("unknown")
    )
}
