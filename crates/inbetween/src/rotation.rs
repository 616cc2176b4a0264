//! Rotations as people write them — Euler angles in degrees with an axis order, or an axis and an angle — turned into the unit quaternions `quat` tracks hold.
//!
//! Euler angles follow Blender's Euler modes: `[x, y, z]` are the angles about the x, y and z
//! axes, and the order names which turn is applied first, about the fixed (world) axes. Order
//! `"xyz"` turns about x, then y, then z: q = q_z · q_y · q_x, the rotation matrix Rz·Ry·Rx.
//! Every turn is right-handed (counter-clockwise looking down the axis toward the origin).

use crate::quat::{from_axis_angle, mul, Quat, IDENTITY};

/// The six orders of Euler turns; the first letter's turn is applied first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EulerOrder {
    /// x, then y, then z (Blender's default `XYZ`).
    Xyz,
    /// x, then z, then y.
    Xzy,
    /// y, then x, then z.
    Yxz,
    /// y, then z, then x.
    Yzx,
    /// z, then x, then y.
    Zxy,
    /// z, then y, then x.
    Zyx,
}

impl EulerOrder {
    /// Every order, as written in documents.
    pub const NAMES: [&'static str; 6] = ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx"];

    /// The order called `name` (`"xyz"` … `"zyx"`, lower case).
    #[must_use]
    pub fn from_name(name: &str) -> Option<EulerOrder> {
        let all = [
            EulerOrder::Xyz,
            EulerOrder::Xzy,
            EulerOrder::Yxz,
            EulerOrder::Yzx,
            EulerOrder::Zxy,
            EulerOrder::Zyx,
        ];
        EulerOrder::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| all[i])
    }

    /// The axis indices (0 = x, 1 = y, 2 = z) in the order the turns apply.
    #[must_use]
    pub fn axes(self) -> [usize; 3] {
        match self {
            EulerOrder::Xyz => [0, 1, 2],
            EulerOrder::Xzy => [0, 2, 1],
            EulerOrder::Yxz => [1, 0, 2],
            EulerOrder::Yzx => [1, 2, 0],
            EulerOrder::Zxy => [2, 0, 1],
            EulerOrder::Zyx => [2, 1, 0],
        }
    }
}

/// The unit quaternion of Euler angles `degrees` = [about x, about y, about z] applied in
/// `order` about the fixed axes: for order a, b, c it is q_c · q_b · q_a.
#[must_use]
pub fn euler_degrees(degrees: [f64; 3], order: EulerOrder) -> Quat {
    let mut q = IDENTITY;
    for axis in order.axes() {
        let mut direction = [0.0; 3];
        direction[axis] = 1.0;
        q = mul(from_axis_angle(direction, degrees[axis].to_radians()), q);
    }
    q
}

/// The unit quaternion turning `degrees` about `axis` (any non-zero length); `None` for a zero
/// or non-finite axis.
#[must_use]
pub fn axis_angle_degrees(axis: [f64; 3], degrees: f64) -> Option<Quat> {
    let length2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
    if !(length2.is_finite() && length2 > 0.0) {
        return None;
    }
    Some(from_axis_angle(axis, degrees.to_radians()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quat::rotate_vector;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| crate::math::abs(x - y) < 1e-12)
    }

    #[test]
    fn a_quarter_turn_about_y_is_the_hand_worked_quaternion() {
        let h = core::f64::consts::FRAC_1_SQRT_2;
        let q = euler_degrees([0.0, 90.0, 0.0], EulerOrder::Xyz);
        assert!(close([q[0], q[1], q[2]], [0.0, h, 0.0]) && crate::math::abs(q[3] - h) < 1e-12);
        let a = axis_angle_degrees([0.0, 2.0, 0.0], 90.0).unwrap();
        assert!(close([a[0], a[1], a[2]], [0.0, h, 0.0]));
        assert_eq!(axis_angle_degrees([0.0; 3], 90.0), None);
    }

    #[test]
    fn orders_apply_their_first_turn_first() {
        // x by 90° then z by 90°, about fixed axes: the y axis goes to z (first turn), then z
        // stays z; the x axis stays x, then goes to y.
        let xyz = euler_degrees([90.0, 0.0, 90.0], EulerOrder::Xyz);
        assert!(close(rotate_vector(xyz, [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]));
        assert!(close(rotate_vector(xyz, [1.0, 0.0, 0.0]), [0.0, 1.0, 0.0]));
        // z first, then x: the x axis goes to y, then y goes to z.
        let zyx = euler_degrees([90.0, 0.0, 90.0], EulerOrder::Zyx);
        assert!(close(rotate_vector(zyx, [1.0, 0.0, 0.0]), [0.0, 0.0, 1.0]));
    }
}
