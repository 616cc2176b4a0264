//! Import of ozz-animation runtime archives (`.ozz` animation version 7, skeleton version 2) into animation documents: one track per joint and transform, keys decompressed from the runtime layout.
//!
//! An ozz animation stores, per transform kind (translation, rotation, scale), every key of
//! every track in one array ordered by the time the sampler needs it: the first `N` keys are
//! each track's first key, the next `N` each track's second key (`N` = the track count rounded
//! up to a multiple of 4; the padding tracks are dropped here), and each later key `k` names the
//! previous key of its own track as `k − previouses[k]`. A key's time is
//! `timepoints[ratios[k]]`, a ratio in [0, 1] of `duration` seconds. Translations and scales are
//! three IEEE half floats; rotations are three 15-bit components with the index and sign of the
//! dropped largest one (see [`decompress_quat`]).
//!
//! The document has, per joint `J` (named from the skeleton, or by its index), tracks
//! `J/translation` (vec3), `J/rotation` (quat) and `J/scale` (vec3), keys at frame
//! `ratio × duration × fps`. ozz samples translations and scales by linear interpolation and
//! rotations by nlerp, `normalize(q0 + (q1 − q0)·u)` with no hemisphere flip, between the two keys
//! around the sampled ratio, and holds the first and last keys outside them. Translations and
//! scales become `linear` keys; rotations become `hermite` keys whose two slopes are both the
//! chord `(q1 − q0) / (f1 − f0)` per frame: a cubic Hermite with both end slopes equal to the
//! chord is the straight line `q0 + (q1 − q0)·u` exactly, and on a quaternion track the
//! component-wise kinds normalize their result, so the segment is ozz's nlerp (not `slerp` and
//! not inbetween's `linear`, which is slerp on quaternion tracks). Keys are normalized in f64
//! first, as documents normalize them.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::{Document, DocumentError, Track};

/// What an `.ozz` archive holds that the import cannot accept.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum OzzImportError {
    /// The archive ends before a field.
    #[error(
        "{archive} archive truncated: {field} needs {needed} bytes at offset {offset}, {left} left"
    )]
    Truncated {
        /// `animation` or `skeleton`.
        archive: &'static str,
        /// The field being read.
        field: &'static str,
        /// Its offset.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left.
        left: usize,
    },
    /// The archive's tag is not the expected one.
    #[error("not an ozz {archive} archive: tag {found:?}, expected {expected:?}")]
    Tag {
        /// `animation` or `skeleton`.
        archive: &'static str,
        /// Expected tag.
        expected: &'static str,
        /// Tag found.
        found: String,
    },
    /// The archive's version is not the one read here.
    #[error("ozz {archive} archive version {found}, only version {expected} is read")]
    Version {
        /// `animation` or `skeleton`.
        archive: &'static str,
        /// Version read here.
        expected: u32,
        /// Version found.
        found: u32,
    },
    /// A header field is out of range.
    #[error("animation header: {field} is {found}, expected {expected}")]
    Header {
        /// The field.
        field: &'static str,
        /// Its value.
        found: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A key array breaks the runtime layout.
    #[error("{transform} key {key}: {problem}")]
    Layout {
        /// `translation`, `rotation` or `scale`.
        transform: &'static str,
        /// Index in that kind's key array.
        key: usize,
        /// What is wrong.
        problem: String,
    },
    /// A translation or scale key is a half-float infinity or NaN.
    #[error("{transform} track {track} key {key}: component {component} is not finite")]
    NonFinite {
        /// `translation` or `scale`.
        transform: &'static str,
        /// Joint index.
        track: usize,
        /// Key index in the track.
        key: usize,
        /// 0, 1 or 2.
        component: usize,
    },
    /// The skeleton's joint count differs from the animation's track count.
    #[error("the skeleton has {skeleton} joints, the animation {animation} tracks")]
    JointCount {
        /// Joints in the skeleton.
        skeleton: usize,
        /// Tracks in the animation.
        animation: usize,
    },
    /// `fps` is not a positive finite number.
    #[error("fps must be a positive finite number, found {0}")]
    Fps(f64),
    /// The document refused the tracks (two joints with the same name, …).
    #[error("{0}")]
    Document(#[from] DocumentError),
}

/// One transform kind's keys in the runtime layout.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyArray {
    /// Per key, the index of its time in [`OzzAnimation::timepoints`].
    pub ratios: Vec<u16>,
    /// Per key, the distance back to the previous key of its track (0 for the first `2N`).
    pub previouses: Vec<u16>,
    /// Per key, its three compressed 16-bit values.
    pub keys: Vec<[u16; 3]>,
}

/// An ozz runtime animation as stored (`ozz-animation` archive, version 7).
#[derive(Debug, Clone, PartialEq)]
pub struct OzzAnimation {
    /// The clip's name.
    pub name: String,
    /// Length in seconds.
    pub duration: f32,
    /// Animated joints (tracks, without the padding to a multiple of 4).
    pub num_tracks: usize,
    /// Key times as ratios of `duration`.
    pub timepoints: Vec<f32>,
    /// Translation keys (half floats).
    pub translations: KeyArray,
    /// Rotation keys (see [`decompress_quat`]).
    pub rotations: KeyArray,
    /// Scale keys (half floats).
    pub scales: KeyArray,
}

/// One track's keys in time order: (ratio of the duration, value).
pub type TrackKeys<V> = Vec<(f32, V)>;

/// An ozz skeleton's joint names and parents (`ozz-skeleton` archive, version 2).
#[derive(Debug, Clone, PartialEq)]
pub struct OzzSkeleton {
    /// Joint names, by joint index.
    pub names: Vec<String>,
    /// Parent joint indices (−1 for a root).
    pub parents: Vec<i16>,
}

/// Little reader over an archive's bytes in the archive's byte order.
struct Reader<'a> {
    archive: &'static str,
    bytes: &'a [u8],
    at: usize,
    big_endian: bool,
}

impl<'a> Reader<'a> {
    /// After the one-byte endianness tag (0: big endian, else little endian).
    fn new(archive: &'static str, bytes: &'a [u8]) -> Result<Self, OzzImportError> {
        let mut r = Reader {
            archive,
            bytes,
            at: 0,
            big_endian: false,
        };
        r.big_endian = r.take("endianness tag", 1)?[0] == 0;
        Ok(r)
    }

    fn take(&mut self, field: &'static str, n: usize) -> Result<&'a [u8], OzzImportError> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(OzzImportError::Truncated {
                archive: self.archive,
                field,
                offset: self.at,
                needed: n,
                left,
            });
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], OzzImportError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(field, N)?);
        if self.big_endian {
            a.reverse();
        }
        Ok(a)
    }

    fn u16(&mut self, field: &'static str) -> Result<u16, OzzImportError> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, OzzImportError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    fn count(&mut self, field: &'static str) -> Result<usize, OzzImportError> {
        Ok(self.u32(field)? as usize)
    }

    fn f32(&mut self, field: &'static str) -> Result<f32, OzzImportError> {
        Ok(f32::from_le_bytes(self.array(field)?))
    }

    /// A NUL-terminated string (bytes that are not UTF-8 are replaced).
    fn c_string(&mut self, field: &'static str) -> Result<String, OzzImportError> {
        let rest = &self.bytes[self.at..];
        let len = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let text = String::from_utf8_lossy(self.take(field, len)?).into_owned();
        self.take(field, 1)?;
        Ok(text)
    }

    fn tag_version(&mut self, tag: &'static str, version: u32) -> Result<(), OzzImportError> {
        let found = self.c_string("tag")?;
        if found != tag {
            return Err(OzzImportError::Tag {
                archive: self.archive,
                expected: tag,
                found,
            });
        }
        let found = self.u32("version")?;
        if found != version {
            return Err(OzzImportError::Version {
                archive: self.archive,
                expected: version,
                found,
            });
        }
        Ok(())
    }
}

/// Counts in the animation header, in archive order.
struct Counts {
    keys: [usize; 3],
    iframe_entries: [usize; 3],
    iframe_desc: [usize; 3],
}

impl OzzAnimation {
    /// Parses an animation archive.
    ///
    /// # Errors
    /// A wrong tag or version, a truncated archive, a header field out of range.
    pub fn parse(bytes: &[u8]) -> Result<Self, OzzImportError> {
        let mut r = Reader::new("animation", bytes)?;
        r.tag_version("ozz-animation", 7)?;
        let duration = r.f32("duration")?;
        let num_tracks = r.count("num_tracks")?;
        let name_len = r.count("name length")?;
        let timepoints_count = r.count("timepoints count")?;
        let mut counts = Counts {
            keys: [0; 3],
            iframe_entries: [0; 3],
            iframe_desc: [0; 3],
        };
        for c in &mut counts.keys {
            *c = r.count("key count")?;
        }
        for k in 0..3 {
            counts.iframe_entries[k] = r.count("iframe entries count")?;
            counts.iframe_desc[k] = r.count("iframe desc count")?;
        }
        let name = String::from_utf8_lossy(r.take("name", name_len)?).into_owned();
        if !(duration.is_finite() && duration > 0.0) {
            return Err(OzzImportError::Header {
                field: "duration",
                found: duration.to_string(),
                expected: "a positive finite number of seconds",
            });
        }
        let mut timepoints = Vec::with_capacity(timepoints_count.min(bytes.len()));
        for _ in 0..timepoints_count {
            let t = r.f32("timepoints")?;
            if !(0.0..=1.0).contains(&t) {
                return Err(OzzImportError::Header {
                    field: "timepoint",
                    found: t.to_string(),
                    expected: "a ratio in [0, 1]",
                });
            }
            timepoints.push(t);
        }
        let ratio_u8 = timepoints_count <= usize::from(u8::MAX);
        let mut arrays = [
            KeyArray::default(),
            KeyArray::default(),
            KeyArray::default(),
        ];
        for (k, array) in arrays.iter_mut().enumerate() {
            *array = read_key_array(&mut r, &counts, k, ratio_u8)?;
        }
        let [translations, rotations, scales] = arrays;
        Ok(Self {
            name,
            duration,
            num_tracks,
            timepoints,
            translations,
            rotations,
            scales,
        })
    }

    /// Tracks padded to a multiple of 4, as the runtime stores them.
    #[must_use]
    pub fn padded_tracks(&self) -> usize {
        self.num_tracks.div_ceil(4).saturating_mul(4)
    }
}

/// One kind's ratios, previouses, iframe tables (skipped) and keys.
fn read_key_array(
    r: &mut Reader<'_>,
    counts: &Counts,
    k: usize,
    ratio_u8: bool,
) -> Result<KeyArray, OzzImportError> {
    let n = counts.keys[k];
    let ratios = if ratio_u8 {
        r.take("ratios", n)?.iter().map(|&b| u16::from(b)).collect()
    } else {
        (0..n).map(|_| r.u16("ratios")).collect::<Result<_, _>>()?
    };
    let previouses = (0..n)
        .map(|_| r.u16("previouses"))
        .collect::<Result<_, _>>()?;
    r.take("iframe entries", counts.iframe_entries[k])?;
    r.take(
        "iframe descriptions",
        counts.iframe_desc[k].saturating_mul(4),
    )?;
    r.f32("iframe interval")?;
    let keys = (0..n)
        .map(|_| Ok([r.u16("keys")?, r.u16("keys")?, r.u16("keys")?]))
        .collect::<Result<_, OzzImportError>>()?;
    Ok(KeyArray {
        ratios,
        previouses,
        keys,
    })
}

impl OzzSkeleton {
    /// Parses a skeleton archive (joint names and parents; the rest poses are not read).
    ///
    /// # Errors
    /// A wrong tag or version, a truncated archive.
    pub fn parse(bytes: &[u8]) -> Result<Self, OzzImportError> {
        let mut r = Reader::new("skeleton", bytes)?;
        r.tag_version("ozz-skeleton", 2)?;
        let joints = r.count("num_joints")?;
        if joints == 0 {
            return Ok(Self {
                names: Vec::new(),
                parents: Vec::new(),
            });
        }
        r.u32("name characters")?;
        let names = (0..joints)
            .map(|_| r.c_string("joint names"))
            .collect::<Result<Vec<_>, _>>()?;
        let parents = (0..joints)
            .map(|_| r.u16("joint parents").map(|p| p as i16))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { names, parents })
    }
}

/// IEEE 754 half float to f32 (exact: every half is an f32).
#[must_use]
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let magnitude = match exp {
        // Subnormal: mant × 2^-24, exact in f32.
        0 => (mant as f32) * f32::from_bits(0x3380_0000),
        0x1f => f32::from_bits(0x7f80_0000 | (mant << 13)),
        _ => f32::from_bits(((exp + 112) << 23) | (mant << 13)),
    };
    f32::from_bits(sign | magnitude.to_bits())
}

/// A rotation key to `[x, y, z, w]`, as ozz decompresses it: the three stored components are
/// `c·√2/32767 − √2/2` (c the 15-bit value), placed around the largest one (index in the low two
/// bits), which is `±√(max(0, 1 − Σc²))` with the stored sign — all in f32.
#[must_use]
pub fn decompress_quat(key: [u16; 3]) -> [f32; 4] {
    const SCALE: f32 = core::f32::consts::SQRT_2 / 32767.0;
    const OFFSET: f32 = -core::f32::consts::SQRT_2 / 2.0;
    let packed = (u32::from(key[0]) >> 3) | (u32::from(key[1]) << 13) | (u32::from(key[2]) << 29);
    let largest = usize::from(key[0] & 3);
    let negative = (key[0] >> 2) & 1 == 1;
    let stored = [
        packed & 0x7fff,
        (packed >> 15) & 0x7fff,
        u32::from(key[2]) >> 1,
    ];
    let mut q = [0.0f32; 4];
    let mut next = 0;
    for (i, c) in q.iter_mut().enumerate() {
        if i != largest {
            *c = SCALE * stored[next] as f32 + OFFSET;
            next += 1;
        }
    }
    let dot = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    let w = crate::math::sqrt(f64::from((1.0 - dot).max(0.0))) as f32;
    q[largest] = if negative { -w } else { w };
    q
}

/// The three transform kinds, in archive order.
const TRANSFORMS: [&str; 3] = ["translation", "rotation", "scale"];

/// Splits one kind's keys into tracks (`num_tracks` of them, padding dropped): per track, its
/// keys in time order as (ratio, compressed value).
///
/// # Errors
/// Fewer than two keys per padded track, a ratio index past `timepoints`, a previous-key
/// distance that does not lead to the last key of a track, or a track whose key times do not
/// increase.
pub fn split_tracks(
    animation: &OzzAnimation,
    array: &KeyArray,
    transform: &'static str,
) -> Result<Vec<TrackKeys<[u16; 3]>>, OzzImportError> {
    let padded = animation.padded_tracks();
    let layout = |key: usize, problem: String| OzzImportError::Layout {
        transform,
        key,
        problem,
    };
    let count = array.keys.len();
    if count < padded.saturating_mul(2) {
        return Err(layout(
            count,
            format!("{count} keys for {padded} padded tracks: each needs two"),
        ));
    }
    let mut tracks: Vec<TrackKeys<[u16; 3]>> = vec![Vec::new(); padded];
    // Per key, its track; per track, its last key so far.
    let mut track_of = vec![0usize; count];
    let mut last = vec![usize::MAX; padded];
    for key in 0..count {
        let track = if key < 2 * padded {
            key % padded
        } else {
            let back = usize::from(array.previouses[key]);
            let previous = key.checked_sub(back).filter(|_| back > 0);
            match previous {
                Some(p) if last[track_of[p]] == p => track_of[p],
                _ => {
                    return Err(layout(
                        key,
                        format!("previous key {back} back is not the last key of a track"),
                    ))
                }
            }
        };
        let index = usize::from(array.ratios[key]);
        let Some(&ratio) = animation.timepoints.get(index) else {
            return Err(layout(
                key,
                format!(
                    "ratio index {index} past the {} timepoints",
                    animation.timepoints.len()
                ),
            ));
        };
        if let Some(&(before, _)) = tracks[track].last() {
            if ratio <= before {
                return Err(layout(
                    key,
                    format!("time {ratio} not after its track's previous key at {before}"),
                ));
            }
        }
        track_of[key] = track;
        last[track] = key;
        tracks[track].push((ratio, array.keys[key]));
    }
    tracks.truncate(animation.num_tracks);
    Ok(tracks)
}

/// Translation (or scale) keys of every track, decompressed.
///
/// # Errors
/// As [`split_tracks`]; a half-float infinity or NaN.
pub fn float3_tracks(
    animation: &OzzAnimation,
    array: &KeyArray,
    transform: &'static str,
) -> Result<Vec<TrackKeys<[f32; 3]>>, OzzImportError> {
    let tracks = split_tracks(animation, array, transform)?;
    tracks
        .into_iter()
        .enumerate()
        .map(|(track, keys)| {
            keys.into_iter()
                .enumerate()
                .map(|(key, (ratio, h))| {
                    let v = h.map(half_to_f32);
                    match v.iter().position(|c| !c.is_finite()) {
                        Some(component) => Err(OzzImportError::NonFinite {
                            transform,
                            track,
                            key,
                            component,
                        }),
                        None => Ok((ratio, v)),
                    }
                })
                .collect()
        })
        .collect()
}

/// Rotation keys of every track, decompressed (`[x, y, z, w]`).
///
/// # Errors
/// As [`split_tracks`].
pub fn rotation_tracks(
    animation: &OzzAnimation,
) -> Result<Vec<TrackKeys<[f32; 4]>>, OzzImportError> {
    let tracks = split_tracks(animation, &animation.rotations, TRANSFORMS[1])?;
    Ok(tracks
        .into_iter()
        .map(|keys| {
            keys.into_iter()
                .map(|(r, k)| (r, decompress_quat(k)))
                .collect()
        })
        .collect())
}

/// Unit quaternion in f64 from a decompressed key (the key itself if it cannot be normalized,
/// which a decompressed key always can: its largest component is at least ½).
fn unit(q: [f32; 4]) -> [f64; 4] {
    let q = q.map(f64::from);
    crate::quat::normalize(q).unwrap_or(q)
}

/// The clip as a document at `fps`: per joint `J` (skeleton names, else the index), tracks
/// `J/translation`, `J/rotation`, `J/scale` (see the module docs for how each is played).
///
/// # Errors
/// Anything [`OzzAnimation::parse`], [`OzzSkeleton::parse`], [`float3_tracks`] or
/// [`rotation_tracks`] refuses; a skeleton whose joint count differs from the track count; a bad
/// `fps`; the document's own refusals (duplicate joint names).
pub fn import_ozz(
    animation: &[u8],
    skeleton: Option<&[u8]>,
    fps: f64,
) -> Result<Document, OzzImportError> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(OzzImportError::Fps(fps));
    }
    let anim = OzzAnimation::parse(animation)?;
    // The key arrays first: they bound the track count by the archive's size.
    let translations = float3_tracks(&anim, &anim.translations, TRANSFORMS[0])?;
    let rotations = rotation_tracks(&anim)?;
    let scales = float3_tracks(&anim, &anim.scales, TRANSFORMS[2])?;
    let names: Vec<String> = match skeleton.map(OzzSkeleton::parse).transpose()? {
        Some(s) if s.names.len() != anim.num_tracks => {
            return Err(OzzImportError::JointCount {
                skeleton: s.names.len(),
                animation: anim.num_tracks,
            })
        }
        Some(s) => s.names,
        None => (0..anim.num_tracks).map(|i| i.to_string()).collect(),
    };
    let frame = |ratio: f32| f64::from(ratio) * f64::from(anim.duration) * fps;
    let mut builder = Document::builder().fps(fps);
    for (j, name) in names.iter().enumerate() {
        let mut t = Track::vec3(format!("{name}/translation"));
        for &(r, v) in &translations[j] {
            t = t.key(frame(r), v.map(f64::from));
        }
        builder = builder.track(t);
        let mut t = Track::quat(format!("{name}/rotation"));
        let keys = &rotations[j];
        for (k, &(r, q)) in keys.iter().enumerate() {
            let q0 = unit(q);
            t = t.key(frame(r), q0);
            if let Some(&(r1, q1)) = keys.get(k + 1) {
                let (q1, len) = (unit(q1), frame(r1) - frame(r));
                let chord: [f64; 4] = core::array::from_fn(|c| (q1[c] - q0[c]) / len);
                t = t.hermite(chord, chord);
            }
        }
        builder = builder.track(t);
        let mut t = Track::vec3(format!("{name}/scale"));
        for &(r, v) in &scales[j] {
            t = t.key(frame(r), v.map(f64::from));
        }
        builder = builder.track(t);
    }
    Ok(builder.build()?)
}
