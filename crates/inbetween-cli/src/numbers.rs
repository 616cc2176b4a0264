//! Numbers for people: values rounded to a number of decimals (from a tolerance or `--digits`), written out in full (never an exponent, never `-0`), and the rows of `sample`/`play` built from them.

/// Decimals beyond the tolerance's own: rounding to `⌈−log10 tolerance⌉ + 2` decimals moves a
/// value by at most `0.005 × tolerance`, so a played value stays within its tolerance of the
/// exact one when the player's own error is within 0.99 of it (`ACCEPT_FRACTION`).
pub const EXTRA_DECIMALS: i32 = 2;

/// The most decimals shown (`--digits` above it is refused): beyond 17 an f64 has no more.
pub const MAX_DIGITS: usize = 17;

/// How many decimals make `tolerance` (value units) visible: `⌈−log10 tolerance⌉ + 2`, at least
/// 0; `None` (print the shortest exact digits) when the tolerance is not positive and finite or
/// asks for more than [`MAX_DIGITS`].
#[must_use]
pub fn decimals_for_tolerance(tolerance: f64) -> Option<usize> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        return None;
    }
    let d = (-tolerance.log10()).ceil() as i32 + EXTRA_DECIMALS;
    usize::try_from(d.max(0)).ok().filter(|d| *d <= MAX_DIGITS)
}

/// `value` rounded to `decimals` places (half away from zero on the decimal digits, as `{:.N}`
/// does), trailing zeros and a bare point dropped, `-0` written `0`; with `None`, the shortest
/// digits that read back to the same f64 (Rust's `{}`: no exponent). Not-finite values print as
/// `NaN`, `inf`, `-inf`.
#[must_use]
pub fn format(value: f64, decimals: Option<usize>) -> String {
    let Some(d) = decimals.filter(|_| value.is_finite()) else {
        return format!("{value}");
    };
    let mut text = format!("{value:.d$}");
    if text.contains('.') {
        let kept = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(kept);
    }
    if text == "-0" {
        text = "0".into();
    }
    text
}

/// Appends one CSV row: the frame, then each value with its column's decimals.
pub fn write_row(frame: &str, values: &[f64], decimals: &[Option<usize>], out: &mut String) {
    out.push_str(frame);
    for (i, v) in values.iter().enumerate() {
        out.push(',');
        out.push_str(&format(*v, decimals.get(i).copied().flatten()));
    }
    out.push('\n');
}

/// The frame of row `row` stepping `step` from `start`, as rows show it: an integer as such,
/// else rounded to 9 decimals (`0.1 × 3` shows as `0.3`).
#[must_use]
pub fn frame_label(start: f64, step: f64, row: u64) -> String {
    let frame = start + row as f64 * step;
    format(frame, Some(9))
}

/// Scales the quaternion columns of a row (4 values each, at the given offsets) to unit length,
/// as a renderer would: a played quaternion drifts from |q| = 1 by up to the tolerance.
pub fn renormalize_quats(values: &mut [f64], quat_offsets: &[usize]) {
    for &at in quat_offsets {
        let Some(q) = values.get_mut(at..at + 4) else {
            continue;
        };
        let length = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        if length.is_finite() && length > 0.0 {
            for c in q.iter_mut() {
                *c /= length;
            }
        }
    }
}

/// The decimals of each value column: `digits` for all when given, else each column's
/// tolerance's ([`decimals_for_tolerance`]).
#[must_use]
pub fn column_decimals(digits: Option<usize>, tolerances: &[f64]) -> Vec<Option<usize>> {
    tolerances
        .iter()
        .map(|t| digits.or_else(|| decimals_for_tolerance(*t)))
        .collect()
}

/// Parses `--rate`: a number (`-1`, `0.5`) or a fraction `A/B` (`60/144`, `-1/2`).
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|_| format!("expected a number or a fraction A/B, found \"{text}\""))
    };
    match text.split_once('/') {
        Some((a, b)) => Ok(number(a)? / number(b)?),
        None => number(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issues_noise_reads_as_round_numbers() {
        let d = decimals_for_tolerance(1e-6);
        assert_eq!(d, Some(8));
        assert_eq!(
            format(-0.000_000_000_000_000_132_516_610_532_040_78, d),
            "0"
        );
        assert_eq!(format(0.999_999_999_999_999_9, d), "1");
        assert_eq!(format(-4.982_125_82e-15, d), "0");
        assert_eq!(format(std::f64::consts::FRAC_1_SQRT_2, d), "0.70710678");
        assert_eq!(format(235.82, d), "235.82");
        assert_eq!(format(-2.25, Some(1)), "-2.2");
        assert_eq!(format(1e-20, None), "0.00000000000000000001");
    }

    #[test]
    fn tolerances_give_their_decimals() {
        assert_eq!(decimals_for_tolerance(2.4e-4), Some(6));
        assert_eq!(decimals_for_tolerance(1.0), Some(2));
        assert_eq!(decimals_for_tolerance(1000.0), Some(0));
        assert_eq!(decimals_for_tolerance(1e-30), None);
        assert_eq!(decimals_for_tolerance(0.0), None);
    }

    #[test]
    fn rates_read_as_typed() {
        assert_eq!(parse_rate("-1"), Ok(-1.0));
        assert_eq!(parse_rate("60/144"), Ok(60.0 / 144.0));
        assert_eq!(parse_rate("-1/2"), Ok(-0.5));
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn rows_step_by_multiplication() {
        assert_eq!(frame_label(0.0, 0.1, 3), "0.3");
        assert_eq!(frame_label(10.0, -0.5, 3), "8.5");
    }

    #[test]
    fn renormalized_quaternions_have_unit_length() {
        let mut v = [9.0, 0.0, 0.0, 1.000_000_024_1, 0.0, 0.0, 0.0];
        renormalize_quats(&mut v, &[3]);
        assert_eq!(v[..3], [9.0, 0.0, 0.0]);
        assert_eq!(v[3], 1.0);
    }
}
