//! Progress bars on standard error for long work (compiling, importing, benchmarks): drawn only when standard error is a terminal and the user did not ask for `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this never shows a bar (indicatif draws lazily; a bar that would flash for
/// a few milliseconds stays hidden).
const SHOW_AFTER: Duration = Duration::from_millis(300);

/// A progress bar that is silent off a terminal or when `quiet`.
pub struct Progress {
    bar: ProgressBar,
    started: std::time::Instant,
}

impl Progress {
    /// Whether bars are drawn at all: standard error is a terminal and not `quiet`.
    #[must_use]
    pub fn enabled(quiet: bool) -> bool {
        !quiet && std::io::stderr().is_terminal()
    }

    /// A bar of `total` steps labelled `label` (e.g. "compiling tracks").
    #[must_use]
    pub fn bar(label: &str, total: u64, quiet: bool) -> Self {
        Self::new(
            label,
            quiet,
            Some(total),
            "{msg:>18} [{bar:32}] {pos}/{len} ({elapsed}, {eta} left)",
        )
    }

    /// A spinner for work without a known length (reading a large glTF file, benchmarks).
    #[must_use]
    pub fn spinner(label: &str, quiet: bool) -> Self {
        Self::new(label, quiet, None, "{spinner} {msg} ({elapsed})")
    }

    fn new(label: &str, quiet: bool, total: Option<u64>, template: &str) -> Self {
        let bar = if Self::enabled(quiet) {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            if total.is_none() {
                bar.enable_steady_tick(Duration::from_millis(120));
            }
            bar
        } else {
            ProgressBar::hidden()
        };
        bar.set_message(label.to_string());
        Self {
            bar,
            started: std::time::Instant::now(),
        }
    }

    /// Moves the bar to `done` of `total`.
    pub fn set(&self, done: u64, total: u64) {
        if self.bar.length() != Some(total) {
            self.bar.set_length(total);
        }
        if self.started.elapsed() >= SHOW_AFTER || done == total {
            self.bar.set_position(done);
        }
    }

    /// Changes the label.
    pub fn label(&self, label: &str) {
        self.bar.set_message(label.to_string());
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn quiet_bars_are_hidden_and_count_anyway() {
        let p = Progress::bar("compiling tracks", 10, true);
        assert!(p.bar.is_hidden());
        p.set(10, 10);
        assert_eq!(p.bar.position(), 10);
        assert!(!Progress::enabled(true));
    }
}
