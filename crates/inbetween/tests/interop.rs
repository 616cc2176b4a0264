//! Conversions to and from glam, mint and serde (run with `--features serde,glam,mint`).
#![cfg(all(feature = "glam", feature = "mint", feature = "serde"))]

use inbetween::{Track, Value, ValueType, Wrap};

#[test]
fn glam_vectors_and_quaternions_round_trip() {
    let v: Value = glam::DVec3::new(1.0, 2.0, 3.0).into();
    assert_eq!(v.as_slice(), &[1.0, 2.0, 3.0]);
    assert_eq!(v.to_dvec3(), glam::DVec3::new(1.0, 2.0, 3.0));
    let q = glam::DQuat::from_rotation_z(0.5);
    let qv: Value = q.into();
    assert_eq!(qv.to_dquat(), q);
    let f: Value = glam::Vec2::new(0.5, -1.0).into();
    assert_eq!(f.as_slice(), &[0.5, -1.0]);
    // A track built from glam values evaluates back into glam.
    let t = Track::vec2("p")
        .key(0.0, glam::DVec2::ZERO)
        .key(10.0, glam::DVec2::new(10.0, 20.0))
        .build()
        .unwrap();
    assert_eq!(t.eval(5.0).to_dvec2(), glam::DVec2::new(5.0, 10.0));
}

#[test]
fn mint_vectors_and_quaternions_round_trip() {
    let m = mint::Vector3 {
        x: 1.0,
        y: 2.0,
        z: 3.0,
    };
    let v: Value = m.into();
    let back: mint::Vector3<f64> = v.into();
    assert_eq!(back, m);
    let q = mint::Quaternion {
        v: mint::Vector3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        s: 1.0,
    };
    let qv: Value = q.into();
    assert_eq!(qv.as_slice(), &[0.0, 0.0, 0.0, 1.0]);
    let back: mint::Quaternion<f64> = qv.into();
    assert_eq!(back, q);
}

#[test]
fn serde_round_trips_values_and_enums() {
    let v = Value::new([1.0, 2.5]);
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(text, "[1.0,2.5]");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    assert_eq!(serde_json::to_string(&Value::scalar(3.0)).unwrap(), "3.0");
    assert_eq!(serde_json::to_string(&ValueType::Vec3).unwrap(), "\"vec3\"");
    assert_eq!(
        serde_json::from_str::<Wrap>("\"ping_pong\"").unwrap(),
        Wrap::PingPong
    );
    assert!(serde_json::from_str::<Value>("[1, 2, 3, 4, 5]").is_err());
}
