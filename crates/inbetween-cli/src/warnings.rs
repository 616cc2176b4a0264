//! Printing a document's warnings on standard error, and `--strict`, which turns them into an error.

use std::sync::atomic::{AtomicBool, Ordering};

use inbetween::lint::Warning;

use crate::error::CliError;

/// `--strict`, set once from the command line.
static STRICT: AtomicBool = AtomicBool::new(false);

/// Sets `--strict`: a document with warnings is refused (exit 1) instead of used.
pub fn set_strict(strict: bool) {
    STRICT.store(strict, Ordering::Relaxed);
}

/// Prints each warning as `warning: FILE: WHERE: WHAT` on standard error; under `--strict`,
/// refuses the document when there is any.
pub fn report(file: &str, warnings: &[Warning]) -> Result<(), CliError> {
    for warning in warnings {
        eprintln!("warning: {file}: {warning}");
    }
    if STRICT.load(Ordering::Relaxed) && !warnings.is_empty() {
        return Err(CliError::Strict {
            file: file.to_string(),
            count: warnings.len(),
        });
    }
    Ok(())
}
