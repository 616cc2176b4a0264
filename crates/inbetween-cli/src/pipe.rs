//! A reader that goes away (`inbetween demo | head`) ends the command quietly with status 0, as `sample` and `play` do through their writers.

use std::panic::PanicHookInfo;

/// True for the panic `print!`/`println!` raise when standard output or error is a pipe
/// whose reader has closed it.
fn is_closed_pipe(info: &PanicHookInfo<'_>) -> bool {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.starts_with("failed printing to std") && message.contains("Broken pipe")
}

/// Installs a panic hook that exits with status 0, printing nothing, when printing a report
/// fails because the reader closed the pipe; every other panic goes to the default hook.
pub fn exit_quietly_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if is_closed_pipe(info) {
            std::process::exit(0);
        }
        default(info);
    }));
}
