//! Track value types (scalar, vectors, colour, quaternion) and the small fixed-size `Value` they share.

use core::fmt;
use core::ops::Deref;

/// The largest number of components a value has (vec4, colour and quat have 4); defined once, by the
/// stream format.
pub use crate::stream::layout::MAX_COMPONENTS;

/// What a track animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ValueType {
    /// One number.
    Scalar,
    /// Two numbers x, y.
    Vec2,
    /// Three numbers x, y, z.
    Vec3,
    /// Four numbers x, y, z, w.
    Vec4,
    /// Four numbers r, g, b, a.
    Color,
    /// A rotation quaternion x, y, z, w (glTF order), kept normalized.
    Quat,
}

impl ValueType {
    /// Every value type, in the spec's order.
    pub const ALL: [ValueType; 6] = [
        ValueType::Scalar,
        ValueType::Vec2,
        ValueType::Vec3,
        ValueType::Vec4,
        ValueType::Color,
        ValueType::Quat,
    ];

    /// Number of components: 1 for scalar, 2 or 3 for vec2/vec3, 4 for vec4, color and quat.
    #[inline]
    #[must_use]
    pub const fn components(self) -> usize {
        match self {
            ValueType::Scalar => 1,
            ValueType::Vec2 => 2,
            ValueType::Vec3 => 3,
            ValueType::Vec4 | ValueType::Color | ValueType::Quat => 4,
        }
    }

    /// The name used in documents: `scalar`, `vec2`, `vec3`, `vec4`, `color`, `quat`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ValueType::Scalar => "scalar",
            ValueType::Vec2 => "vec2",
            ValueType::Vec3 => "vec3",
            ValueType::Vec4 => "vec4",
            ValueType::Color => "color",
            ValueType::Quat => "quat",
        }
    }

    /// Parses a document type name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ValueType> {
        ValueType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Column suffixes in CSV headers: none for a scalar, `x y z w` for vectors and quaternions,
    /// `r g b a` for colours.
    #[must_use]
    pub const fn component_names(self) -> &'static [&'static str] {
        match self {
            ValueType::Scalar => &[],
            ValueType::Vec2 => &["x", "y"],
            ValueType::Vec3 => &["x", "y", "z"],
            ValueType::Vec4 | ValueType::Quat => &["x", "y", "z", "w"],
            ValueType::Color => &["r", "g", "b", "a"],
        }
    }

    /// True for `vec2` and `vec3`, the types that draw a spatial curve.
    #[must_use]
    pub const fn is_spatial(self) -> bool {
        matches!(self, ValueType::Vec2 | ValueType::Vec3)
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A track value: 1 to 4 numbers, stored inline (no allocation).
///
/// Dereferences to the slice of its components.
#[derive(Clone, Copy, PartialEq)]
pub struct Value {
    data: [f64; MAX_COMPONENTS],
    len: u8,
}

impl Value {
    /// A one-component value.
    #[inline]
    #[must_use]
    pub const fn scalar(x: f64) -> Value {
        Value {
            data: [x, 0.0, 0.0, 0.0],
            len: 1,
        }
    }

    /// A value of `N` components (N in 1..=4).
    #[inline]
    #[must_use]
    pub fn new<const N: usize>(components: [f64; N]) -> Value {
        let mut data = [0.0; MAX_COMPONENTS];
        let len = N.min(MAX_COMPONENTS);
        data[..len].copy_from_slice(&components[..len]);
        Value {
            data,
            len: len as u8,
        }
    }

    /// A value from a slice of 1 to 4 numbers; `None` for any other length.
    #[must_use]
    pub fn from_slice(components: &[f64]) -> Option<Value> {
        if components.is_empty() || components.len() > MAX_COMPONENTS {
            return None;
        }
        let mut data = [0.0; MAX_COMPONENTS];
        data[..components.len()].copy_from_slice(components);
        Some(Value {
            data,
            len: components.len() as u8,
        })
    }

    /// `len` zeros (len clamped to 1..=4).
    #[must_use]
    pub fn zeros(len: usize) -> Value {
        Value {
            data: [0.0; MAX_COMPONENTS],
            len: len.clamp(1, MAX_COMPONENTS) as u8,
        }
    }

    /// The components.
    #[inline]
    #[must_use]
    pub fn as_slice(&self) -> &[f64] {
        &self.data[..self.len as usize]
    }

    /// The components, mutable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.data[..self.len as usize]
    }

    /// The components padded with zeros to four.
    #[inline]
    #[must_use]
    pub const fn to_array(&self) -> [f64; MAX_COMPONENTS] {
        self.data
    }

    /// True when every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.as_slice().iter().all(|c| c.is_finite())
    }

    /// The largest absolute component.
    #[must_use]
    pub fn max_abs(&self) -> f64 {
        self.as_slice()
            .iter()
            .fold(0.0, |m, c| m.max(crate::math::abs(*c)))
    }
}

impl Deref for Value {
    type Target = [f64];
    #[inline]
    fn deref(&self) -> &[f64] {
        self.as_slice()
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::scalar(x)
    }
}

impl<const N: usize> From<[f64; N]> for Value {
    fn from(components: [f64; N]) -> Value {
        Value::new(components)
    }
}

impl From<&Value> for Value {
    fn from(v: &Value) -> Value {
        *v
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.len == 1 {
            serializer.serialize_f64(self.data[0])
        } else {
            serde::Serialize::serialize(self.as_slice(), serializer)
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(f64),
            Many(alloc::vec::Vec<f64>),
        }
        match Raw::deserialize(deserializer)? {
            Raw::One(x) => Ok(Value::scalar(x)),
            Raw::Many(v) => Value::from_slice(&v)
                .ok_or_else(|| serde::de::Error::invalid_length(v.len(), &"1 to 4 numbers")),
        }
    }
}

#[cfg(feature = "glam")]
mod glam_interop {
    use super::Value;

    impl From<glam::DVec2> for Value {
        fn from(v: glam::DVec2) -> Value {
            Value::new(v.to_array())
        }
    }
    impl From<glam::DVec3> for Value {
        fn from(v: glam::DVec3) -> Value {
            Value::new(v.to_array())
        }
    }
    impl From<glam::DVec4> for Value {
        fn from(v: glam::DVec4) -> Value {
            Value::new(v.to_array())
        }
    }
    impl From<glam::DQuat> for Value {
        fn from(q: glam::DQuat) -> Value {
            Value::new(q.to_array())
        }
    }
    impl From<glam::Vec2> for Value {
        fn from(v: glam::Vec2) -> Value {
            Value::new(v.as_dvec2().to_array())
        }
    }
    impl From<glam::Vec3> for Value {
        fn from(v: glam::Vec3) -> Value {
            Value::new(v.as_dvec3().to_array())
        }
    }
    impl From<glam::Vec4> for Value {
        fn from(v: glam::Vec4) -> Value {
            Value::new(v.as_dvec4().to_array())
        }
    }
    impl From<glam::Quat> for Value {
        fn from(q: glam::Quat) -> Value {
            Value::new(q.to_array().map(f64::from))
        }
    }

    impl Value {
        /// The first two components as a glam `DVec2` (missing ones are 0).
        #[must_use]
        pub fn to_dvec2(&self) -> glam::DVec2 {
            glam::DVec2::new(self.to_array()[0], self.to_array()[1])
        }
        /// The first three components as a glam `DVec3` (missing ones are 0).
        #[must_use]
        pub fn to_dvec3(&self) -> glam::DVec3 {
            let a = self.to_array();
            glam::DVec3::new(a[0], a[1], a[2])
        }
        /// The four components as a glam `DVec4` (missing ones are 0).
        #[must_use]
        pub fn to_dvec4(&self) -> glam::DVec4 {
            glam::DVec4::from_array(self.to_array())
        }
        /// The four components (x, y, z, w) as a glam `DQuat`.
        #[must_use]
        pub fn to_dquat(&self) -> glam::DQuat {
            glam::DQuat::from_array(self.to_array())
        }
    }
}

#[cfg(feature = "mint")]
mod mint_interop {
    use super::Value;

    impl From<mint::Vector2<f64>> for Value {
        fn from(v: mint::Vector2<f64>) -> Value {
            Value::new([v.x, v.y])
        }
    }
    impl From<mint::Vector3<f64>> for Value {
        fn from(v: mint::Vector3<f64>) -> Value {
            Value::new([v.x, v.y, v.z])
        }
    }
    impl From<mint::Vector4<f64>> for Value {
        fn from(v: mint::Vector4<f64>) -> Value {
            Value::new([v.x, v.y, v.z, v.w])
        }
    }
    impl From<mint::Quaternion<f64>> for Value {
        fn from(q: mint::Quaternion<f64>) -> Value {
            Value::new([q.v.x, q.v.y, q.v.z, q.s])
        }
    }
    impl From<Value> for mint::Vector2<f64> {
        fn from(v: Value) -> Self {
            let a = v.to_array();
            mint::Vector2 { x: a[0], y: a[1] }
        }
    }
    impl From<Value> for mint::Vector3<f64> {
        fn from(v: Value) -> Self {
            let a = v.to_array();
            mint::Vector3 {
                x: a[0],
                y: a[1],
                z: a[2],
            }
        }
    }
    impl From<Value> for mint::Vector4<f64> {
        fn from(v: Value) -> Self {
            let a = v.to_array();
            mint::Vector4 {
                x: a[0],
                y: a[1],
                z: a[2],
                w: a[3],
            }
        }
    }
    impl From<Value> for mint::Quaternion<f64> {
        fn from(v: Value) -> Self {
            let a = v.to_array();
            mint::Quaternion {
                v: mint::Vector3 {
                    x: a[0],
                    y: a[1],
                    z: a[2],
                },
                s: a[3],
            }
        }
    }
}
