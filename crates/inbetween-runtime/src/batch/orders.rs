//! Order-major coefficient arrays of the Horner lanes, f32 and i32 alike (`D + 1` arrays of `len` lanes, `coef[k · len + slot]`): loading one slot and slicing the orders of a run of slots.

/// Loads `values` (orders 0..; missing ones `T::default()`) into `slot` of the order-major
/// arrays `coef` of `len` lanes and orders `0..=degree`. A slot past the lanes is left alone
/// (it would land in the next order's arrays).
#[inline]
pub(crate) fn set_slot<T: Copy + Default>(
    coef: &mut [T],
    (len, degree): (usize, usize),
    slot: usize,
    values: &[T],
) {
    if slot >= len {
        return;
    }
    for k in 0..=degree {
        if let Some(x) = coef.get_mut(k * len + slot) {
            *x = values.get(k).copied().unwrap_or_default();
        }
    }
}

/// The first `N` orders of slots `first .. first + n` of the order-major arrays `coef` of `len`
/// lanes, each exactly `n` long (so a loop over them has no bounds checks and vectorizes).
/// `None` when they do not fit — a broken invariant of the group (`coef.len() ≥ N · len`,
/// `first + n ≤ len`): its caller then writes nothing rather than read another order's lanes.
#[inline(always)]
pub(crate) fn orders<T, const N: usize>(
    coef: &[T],
    len: usize,
    first: usize,
    n: usize,
) -> Option<[&[T]; N]> {
    let fits = first
        .checked_add(n)
        .is_some_and(|end| end <= len && N.checked_mul(len).is_some_and(|all| all <= coef.len()));
    debug_assert!(
        fits,
        "lanes {first}+{n} of {len} (coefficients {})",
        coef.len()
    );
    fits.then(|| core::array::from_fn(|k| &coef[k * len + first..k * len + first + n]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_loads_every_order_and_zeroes_the_missing_ones() {
        // 3 lanes, degree 2: orders [o0 s0 s1 s2 | o1 … | o2 …].
        let mut coef = [9i32; 9];
        set_slot(&mut coef, (3, 2), 1, &[4, 5]);
        assert_eq!(coef, [9, 4, 9, 9, 5, 9, 9, 0, 9]);
    }

    #[test]
    fn orders_slice_a_run_of_slots_and_refuse_what_does_not_fit() {
        let coef: Vec<u32> = (0..12).collect();
        let [a, b, c] = orders::<u32, 3>(&coef, 4, 1, 2).unwrap_or([&[]; 3]);
        assert_eq!((a, b, c), (&[1, 2][..], &[5, 6][..], &[9, 10][..]));
        assert!(orders::<u32, 4>(&coef, 4, 0, 4).is_none());
    }
}
