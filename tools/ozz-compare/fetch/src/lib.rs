//! Empty: this package only fetches ozz-animation-rs for run.sh.
