//! Shared test helpers: `assert_close!` prints both sides and the difference.

#[macro_export]
macro_rules! assert_close {
    ($left:expr, $right:expr, $tol:expr $(, $($msg:tt)+)?) => {{
        let (l, r, tol): (f64, f64, f64) = ($left, $right, $tol);
        let diff = (l - r).abs();
        if diff > tol || diff.is_nan() {
            panic!(
                "assert_close failed{}: left = {l:?}, right = {r:?}, |diff| = {diff:e} > {tol:e}",
                { let s: String = String::new() $(+ ": " + &format!($($msg)+))?; s }
            );
        }
    }};
}

#[macro_export]
macro_rules! assert_all_close {
    ($left:expr, $right:expr, $tol:expr $(, $($msg:tt)+)?) => {{
        let l: &[f64] = &$left;
        let r: &[f64] = &$right;
        assert_eq!(l.len(), r.len(), "lengths differ: {l:?} vs {r:?}");
        for (i, (a, b)) in l.iter().zip(r.iter()).enumerate() {
            let diff = (a - b).abs();
            if diff > $tol || diff.is_nan() {
                panic!(
                    "assert_all_close failed at component {i}{}: left = {l:?}, right = {r:?}, |diff| = {diff:e} > {:e}",
                    { let s: String = String::new() $(+ ": " + &format!($($msg)+))?; s },
                    $tol
                );
            }
        }
    }};
}

#[allow(dead_code)]
pub mod random_documents;
