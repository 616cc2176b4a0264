//! Crowds: entities bound to tracks of a shared stream, played by one `Bank` per stream and clock, written into `Transform` or any component through `BankTarget`.
//!
//! # What a frame does
//!
//! Each update, [`play_banks`] moves every bound entity's clock by `Δ = delta_seconds · fps ·
//! speed` stream frames (0 when paused; `fps` is the stream's). Entities that were played by the
//! same bank and move by the same `Δ` form a *group*; each group has one [`Bank`] over the whole
//! stream, which advances (`Bank::advance`, after `Bank::set_step(Δ)` when `Δ` changed) and
//! writes one row of values; every entity of the group copies its bound channels out of that row.
//! So a crowd of N entities sharing K clocks costs K bank frames plus N small copies.
//!
//! A group that splits (one entity pauses, changes speed or seeks) takes another bank, seeked to
//! its frame; new entities at the same start frame share one. Banks are kept and reused by later
//! groups of the same stream; they are created with `Bank::new` (allocating; under 2 ms for the
//! 69-track walk cycle), never in a steady state.
//!
//! # Frames and accuracy
//!
//! A bank plays positions `base + k · Δ` exactly as `TrackPlayer` does (fractional frames, any
//! rate, backward), rounded to f32 (docs/stream-format.md, "What each output promises"). With
//! [`BankAnimation::whole_frames`] it plays the clock's whole frames: forward play is then one
//! `advance` at step 1 from an integer frame, the bank's f32 Horner lanes (within the stream's
//! tolerance of exact evaluation plus half an f32 ulp), and other jumps are seeks. Quaternions
//! are written as played, not renormalized (each component within the tolerance of the unit
//! quaternion).

use core::marker::PhantomData;
use std::collections::HashMap;

use bevy_asset::{AssetId, Assets, Handle};
use bevy_ecs::change_detection::DetectChangesMut;
use bevy_ecs::component::{Component, Mutable};
use bevy_ecs::resource::Resource;
use bevy_ecs::system::{Query, Res, ResMut};
use bevy_math::{Quat, Vec3};
use bevy_time::Time;
use bevy_transform::components::Transform;
use inbetween::batch::Bank;

use crate::asset::InbetweenStream;

/// A component whose fields a bank can write: which fields there are, how many components
/// each takes, and how to store them. Implemented for [`Transform`].
pub trait BankTarget: Component<Mutability = Mutable> {
    /// The fields a track can be bound to.
    type Field: Copy + Eq + core::hash::Hash + core::fmt::Debug + Send + Sync + 'static;
    /// Components of `field` (the bound track must have exactly these).
    fn components(field: Self::Field) -> usize;
    /// Stores `values` (`components(field)` numbers) into `field`.
    fn write(&mut self, field: Self::Field, values: &[f32]);
}

/// The fields of a [`Transform`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformField {
    /// `translation` (a `vec3` track).
    Translation,
    /// `rotation` (a `quat` track, `[x, y, z, w]`).
    Rotation,
    /// `scale` (a `vec3` track).
    Scale,
}

impl BankTarget for Transform {
    type Field = TransformField;

    fn components(field: TransformField) -> usize {
        match field {
            TransformField::Rotation => 4,
            TransformField::Translation | TransformField::Scale => 3,
        }
    }

    fn write(&mut self, field: TransformField, values: &[f32]) {
        match (field, values) {
            (TransformField::Translation, &[x, y, z, ..]) => self.translation = Vec3::new(x, y, z),
            (TransformField::Scale, &[x, y, z, ..]) => self.scale = Vec3::new(x, y, z),
            (TransformField::Rotation, &[x, y, z, w, ..]) => {
                self.rotation = Quat::from_xyzw(x, y, z, w);
            }
            _ => {}
        }
    }
}

/// Why a binding cannot be played (the entity is then left as it is).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindError {
    /// No track has this name.
    #[error("the stream has no track named {track:?} (bound to field {field})")]
    NoSuchTrack {
        /// The track asked for.
        track: String,
        /// The field it was bound to.
        field: String,
    },
    /// The track's component count differs from the field's.
    #[error("track {track:?} has {found} components; field {field} takes {expected}")]
    Components {
        /// The track.
        track: String,
        /// The field.
        field: String,
        /// The field's components.
        expected: usize,
        /// The track's components.
        found: usize,
    },
}

/// No slot / no group.
const NONE: u32 = u32::MAX;

/// Bindings resolved against one stream: (field, first channel in the bank's row, components)
/// per binding, or why they cannot play. Shared by every entity with the same bindings.
#[derive(Debug)]
struct Resolved<F> {
    stream: AssetId<InbetweenStream>,
    channels: Result<Vec<(F, u32, u8)>, BindError>,
}

/// Plays tracks of a shared stream into fields of this entity's `T` (by default its
/// [`Transform`]), on its own clock: a start frame, a speed and a pause flag.
///
/// ```ignore
/// commands.spawn((Transform::default(), BankAnimation::<Transform>::new(handle, 12.0)
///     .bind(TransformField::Translation, "Hips/translation")
///     .bind(TransformField::Rotation, "Hips/rotation")));
/// ```
#[derive(Component, Debug, Clone)]
pub struct BankAnimation<T: BankTarget = Transform> {
    /// The stream played.
    pub stream: Handle<InbetweenStream>,
    /// Stream frames per frame of the stream's clock (1: the stream's fps; 0.5 half speed;
    /// negative plays backward). A non-finite speed holds the entity still.
    pub speed: f64,
    /// While true the clock does not move (the entity keeps its values).
    pub paused: bool,
    /// Loop the clock over the stream's span ([`InbetweenStream::span`]), as Bevy's
    /// `RepeatAnimation::Forever` loops a clip; otherwise each track's own wrap applies outside
    /// its keys (glTF imports clamp).
    pub repeat: bool,
    /// Play the whole frames of the clock (`⌊frame⌋`): the pose changes at the stream's fps
    /// whatever the update rate, and forward play stays on the bank's fast path (step 1 from an
    /// integer frame). Off: the clock's exact, fractional frame is played.
    pub whole_frames: bool,
    frame: f64,
    bindings: Vec<(T::Field, String)>,
    /// Index of the resolved bindings in the pool (`NONE`: not yet resolved).
    resolved: u32,
    slot: u32,
    group: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T: BankTarget> BankAnimation<T> {
    /// Plays `stream` from `start_frame` (any real frame; outside the keys each track's wrap
    /// applies) at speed 1, with no field bound yet.
    #[must_use]
    pub fn new(stream: Handle<InbetweenStream>, start_frame: f64) -> Self {
        Self {
            stream,
            speed: 1.0,
            paused: false,
            repeat: false,
            whole_frames: false,
            frame: if start_frame.is_finite() {
                start_frame
            } else {
                0.0
            },
            bindings: Vec::new(),
            resolved: NONE,
            slot: NONE,
            group: NONE,
            marker: PhantomData,
        }
    }

    /// Binds `field` to the track named `track` (checked when the stream is loaded; see
    /// [`BankAnimation::error`]).
    #[must_use]
    pub fn bind(mut self, field: T::Field, track: impl Into<String>) -> Self {
        self.bindings.push((field, track.into()));
        self.resolved = NONE;
        self
    }

    /// The same, at another speed.
    #[must_use]
    pub fn with_speed(mut self, speed: f64) -> Self {
        self.speed = speed;
        self
    }

    /// The same, looping over the stream's span (see [`BankAnimation::repeat`]).
    #[must_use]
    pub fn repeating(mut self) -> Self {
        self.repeat = true;
        self
    }

    /// The same, playing whole frames (see [`BankAnimation::whole_frames`]).
    #[must_use]
    pub fn in_whole_frames(mut self) -> Self {
        self.whole_frames = true;
        self
    }

    /// The entity's clock in frames of the stream (before each track's wrap), as of the last update.
    #[must_use]
    pub fn frame(&self) -> f64 {
        self.frame
    }

    /// The frame last played: the clock, or its whole part with [`BankAnimation::whole_frames`].
    #[must_use]
    pub fn played_frame(&self) -> f64 {
        if self.whole_frames {
            self.frame.floor()
        } else {
            self.frame
        }
    }

    /// Jumps to `frame` (a non-finite frame is ignored); played from the next update.
    pub fn seek(&mut self, frame: f64) {
        if frame.is_finite() {
            self.frame = frame;
            self.slot = NONE;
        }
    }
}

impl BankAnimation<Transform> {
    /// Binds the node's `NODE/translation`, `NODE/rotation` and `NODE/scale` tracks (the names
    /// `inbetween::gltf_import` gives) that `asset` has.
    #[must_use]
    pub fn transform_node(mut self, asset: &InbetweenStream, node: &str) -> Self {
        for (field, suffix) in [
            (TransformField::Translation, "translation"),
            (TransformField::Rotation, "rotation"),
            (TransformField::Scale, "scale"),
        ] {
            let name = format!("{node}/{suffix}");
            if asset.track_index(&name).is_some() {
                self = self.bind(field, name);
            }
        }
        self
    }
}

/// First channel, in bank row order, of every track of `asset`.
fn first_channels(asset: &InbetweenStream) -> Vec<u32> {
    let mut next = 0u32;
    let stream = asset.stream();
    stream
        .tracks()
        .map(|t| {
            let first = next;
            next = next.saturating_add(t.components() as u32);
            first
        })
        .collect()
}

fn resolve_bindings<T: BankTarget>(
    bindings: &[(T::Field, String)],
    asset: &InbetweenStream,
) -> Result<Vec<(T::Field, u32, u8)>, BindError> {
    let firsts = first_channels(asset);
    let stream = asset.stream();
    bindings
        .iter()
        .map(|(field, name)| {
            let track = stream
                .track_by_name(name)
                .ok_or_else(|| BindError::NoSuchTrack {
                    track: name.clone(),
                    field: format!("{field:?}"),
                })?;
            let expected = T::components(*field);
            if track.components() != expected {
                return Err(BindError::Components {
                    track: name.clone(),
                    field: format!("{field:?}"),
                    expected,
                    found: track.components(),
                });
            }
            let first = firsts.get(track.index()).copied().unwrap_or(0);
            Ok((*field, first, expected as u8))
        })
        .collect()
}

self_cell::self_cell!(
    /// A bank and the stream asset whose bytes it borrows.
    struct OwnedBank {
        owner: InbetweenStream,
        #[not_covariant]
        dependent: Bank,
    }
);

/// One bank of the pool and the row it last wrote.
struct Slot {
    stream: AssetId<InbetweenStream>,
    bank: OwnedBank,
    row: Vec<f32>,
    claimed: bool,
}

/// Entities that move together this update: (stream, previous slot, Δ bits, clock bits, mode:
/// `REPEAT | WHOLE_FRAMES`).
type GroupKey = (AssetId<InbetweenStream>, u32, u64, u64, u8);
/// Mode bit: the clock loops over the stream's span.
const REPEAT: u8 = 1;
/// Mode bit: the bank plays the whole frames of the clock.
const WHOLE_FRAMES: u8 = 2;

/// A group of entities and the slot that plays it.
struct Group {
    key: GroupKey,
    slot: u32,
    frame: f64,
}

/// Distinct binding lists per stream.
type BindingKey<F> = (AssetId<InbetweenStream>, Vec<(F, String)>);

/// The banks that play `BankAnimation<T>` entities (one per stream and clock), reused from
/// update to update, and the entities' resolved bindings.
#[derive(Resource)]
pub struct BankPool<T: BankTarget> {
    slots: Vec<Slot>,
    groups: Vec<Group>,
    index: HashMap<GroupKey, u32>,
    resolved: Vec<Resolved<T::Field>>,
    resolved_index: HashMap<BindingKey<T::Field>, u32>,
}

impl<T: BankTarget> Default for BankPool<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            groups: Vec::new(),
            index: HashMap::new(),
            resolved: Vec::new(),
            resolved_index: HashMap::new(),
        }
    }
}

impl<T: BankTarget> BankPool<T> {
    /// Why `anim`'s bindings cannot be played (`None` while its stream is not loaded, or when
    /// they play).
    #[must_use]
    pub fn error(&self, anim: &BankAnimation<T>) -> Option<&BindError> {
        let resolved = self.resolved.get(anim.resolved as usize)?;
        resolved.channels.as_ref().err()
    }

    /// Whether `anim`'s bindings play `asset` (`id`), resolving them once per distinct binding
    /// list and stream (entities with the same bindings share one resolution).
    fn resolve(
        &mut self,
        anim: &mut BankAnimation<T>,
        id: AssetId<InbetweenStream>,
        asset: &InbetweenStream,
    ) -> bool {
        if let Some(r) = self
            .resolved
            .get(anim.resolved as usize)
            .filter(|r| r.stream == id)
        {
            return r.channels.is_ok();
        }
        let key = (id, anim.bindings.clone());
        let resolved = &mut self.resolved;
        let index = *self.resolved_index.entry(key).or_insert_with(|| {
            resolved.push(Resolved {
                stream: id,
                channels: resolve_bindings::<T>(&anim.bindings, asset),
            });
            (resolved.len() - 1) as u32
        });
        anim.resolved = index;
        anim.slot = NONE;
        self.resolved
            .get(index as usize)
            .is_some_and(|r| r.channels.is_ok())
    }

    /// Banks held (in use or kept for reuse).
    #[must_use]
    pub fn banks(&self) -> usize {
        self.slots.len()
    }

    /// Groups (distinct clocks) played in the last update.
    #[must_use]
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The group of `key`, created if new.
    fn group(&mut self, key: GroupKey) -> u32 {
        let groups = &mut self.groups;
        *self.index.entry(key).or_insert_with(|| {
            groups.push(Group {
                key,
                slot: NONE,
                frame: f64::from_bits(key.3),
            });
            (groups.len() - 1) as u32
        })
    }

    /// Gives every group a bank at its new frame and fills the banks' rows.
    fn play(&mut self, streams: &Assets<InbetweenStream>) {
        for slot in &mut self.slots {
            slot.claimed = false;
        }
        // A group keeps the bank that played it last update (the first such group does);
        // the others (new entities, split groups) take a free bank or a new one, seeked.
        let mut fresh = vec![false; self.groups.len()];
        for g in &mut self.groups {
            if let Some(slot) = self.slots.get_mut(g.key.1 as usize) {
                if !slot.claimed && slot.stream == g.key.0 {
                    slot.claimed = true;
                    g.slot = g.key.1;
                }
            }
        }
        for (g, fresh) in self.groups.iter_mut().zip(&mut fresh) {
            if g.slot == NONE {
                g.slot = claim_slot(&mut self.slots, g.key.0, streams);
                *fresh = true;
            }
        }
        for (g, &fresh) in self.groups.iter_mut().zip(&fresh) {
            if let Some(slot) = self.slots.get_mut(g.slot as usize) {
                let Slot { bank, row, .. } = slot;
                g.frame = bank.with_dependent_mut(|asset, bank| {
                    let clock = step_group(bank, g, fresh, asset.span());
                    // The row was sized to the bank's channels when it was made.
                    let _ = bank.write_f32(row);
                    clock
                });
            }
        }
    }
}

/// Moves a group's bank to its new frame and returns the group's clock: the bank's frame, or in
/// whole-frame mode the exact clock whose whole part the bank plays.
fn step_group(bank: &mut Bank<'_>, g: &Group, fresh: bool, span: (f64, f64)) -> f64 {
    let d = f64::from_bits(g.key.2);
    let repeat = g.key.4 & REPEAT != 0;
    if g.key.4 & WHOLE_FRAMES != 0 {
        let mut clock = g.frame + d;
        if repeat {
            clock = fold(clock, span);
        }
        let target = clock.floor();
        if bank.step() != 1.0 {
            let _ = bank.set_step(1.0);
        }
        if fresh || target != bank.frame() {
            if !fresh && target == bank.frame() + 1.0 {
                bank.advance();
            } else {
                let _ = bank.seek(target);
            }
        }
        return clock;
    }
    if fresh {
        let _ = bank.seek(g.frame + d);
    } else if d != 0.0 && (d == bank.step() || bank.set_step(d).is_ok()) {
        bank.advance();
    }
    if repeat {
        let frame = bank.frame();
        let folded = fold(frame, span);
        if folded != frame {
            let _ = bank.seek(folded);
        }
    }
    bank.frame()
}

/// `frame` folded into `[first, last)`: `first + (frame − first) mod (last − first)`.
fn fold(frame: f64, (first, last): (f64, f64)) -> f64 {
    if frame < first || frame >= last {
        first + (frame - first).rem_euclid(last - first)
    } else {
        frame
    }
}

/// An unclaimed bank of `stream`, or a new one; `NONE` if the stream is gone or too big.
fn claim_slot(
    slots: &mut Vec<Slot>,
    stream: AssetId<InbetweenStream>,
    streams: &Assets<InbetweenStream>,
) -> u32 {
    if let Some(i) = slots.iter().position(|s| !s.claimed && s.stream == stream) {
        if let Some(s) = slots.get_mut(i) {
            s.claimed = true;
        }
        return i as u32;
    }
    let Some(asset) = streams.get(stream) else {
        return NONE;
    };
    let Ok(bank) = OwnedBank::try_new(asset.clone(), |a| Bank::new(&[a.stream()])) else {
        return NONE;
    };
    let channels = bank.with_dependent(|_, b| b.channels());
    slots.push(Slot {
        stream,
        bank,
        row: vec![0.0; channels],
        claimed: true,
    });
    (slots.len() - 1) as u32
}

/// Plays every [`BankAnimation<T>`]: moves the clocks by `Time`'s delta, plays one bank per
/// stream and clock, and writes the bound fields (see the module docs).
pub fn play_banks<T: BankTarget>(
    time: Res<Time>,
    streams: Res<Assets<InbetweenStream>>,
    mut pool: ResMut<BankPool<T>>,
    mut query: Query<(&mut BankAnimation<T>, &mut T)>,
) {
    let dt = time.delta_secs_f64();
    let pool = &mut *pool;
    pool.groups.clear();
    pool.index.clear();
    let mut memo: Option<(GroupKey, u32)> = None;
    for (mut anim, _) in &mut query {
        let anim = anim.bypass_change_detection();
        anim.group = NONE;
        let id = anim.stream.id();
        let Some(asset) = streams.get(id) else {
            continue;
        };
        if !pool.resolve(anim, id, asset) {
            continue;
        }
        let d = if anim.paused {
            0.0
        } else {
            dt * asset.fps() * anim.speed
        };
        let d = if d.is_finite() { d } else { 0.0 };
        let mode = u8::from(anim.repeat) * REPEAT + u8::from(anim.whole_frames) * WHOLE_FRAMES;
        let key = (id, anim.slot, d.to_bits(), anim.frame.to_bits(), mode);
        anim.group = match memo {
            Some((k, g)) if k == key => g,
            _ => pool.group(key),
        };
        memo = Some((key, anim.group));
    }
    pool.play(&streams);
    for (mut anim, mut target) in &mut query {
        let anim = anim.bypass_change_detection();
        let Some(group) = pool.groups.get(anim.group as usize) else {
            continue;
        };
        let Some(slot) = pool.slots.get(group.slot as usize) else {
            continue;
        };
        anim.frame = group.frame;
        anim.slot = group.slot;
        let resolved = pool.resolved.get(anim.resolved as usize);
        if let Some(Ok(list)) = resolved.map(|r| &r.channels) {
            for &(field, first, n) in list {
                let first = first as usize;
                if let Some(values) = slot.row.get(first..first + usize::from(n)) {
                    target.write(field, values);
                }
            }
        }
    }
}
