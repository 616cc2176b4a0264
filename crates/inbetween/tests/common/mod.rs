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

/// CSS cubic-bezier by bisection on x(t) (independent of the library's solver).
#[allow(dead_code)]
pub fn cubic_bezier(x1: f64, y1: f64, x2: f64, y2: f64, x: f64) -> f64 {
    let bez = |a: f64, b: f64, t: f64| {
        3.0 * (1.0 - t) * (1.0 - t) * t * a + 3.0 * (1.0 - t) * t * t * b + t * t * t
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if bez(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    bez(y1, y2, 0.5 * (lo + hi))
}
