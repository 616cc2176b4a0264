//! Morph weights of one node written as one glTF sampler: per key the value of every morph target (glTF 2.0 §3.11), exact when the targets share keys and kind, baked otherwise.

use std::vec::Vec;

use super::{baked_frames, exact_sampler, finite_value, ExportedAs, GltfExportError, Sampler};
use crate::track::Track;

/// The sampler of a node's weights, `tracks[t]` being target t: when every target's exact
/// sampler has the same interpolation and the same times, their outputs interleaved per key
/// (for `CUBICSPLINE`: all in-tangents, then all values, then all out-tangents, as glTF lays
/// them out); otherwise every target baked at the union of their spans (integer frames and the
/// ends), `LINEAR`.
pub(super) fn sampler(
    tracks: &[&Track],
    fps: f64,
) -> Result<(Sampler, ExportedAs), GltfExportError> {
    let exact: Result<Vec<Sampler>, &'static str> =
        tracks.iter().map(|t| exact_sampler(t, fps)).collect();
    let reason = match exact {
        Ok(samplers) => match interleave(&samplers) {
            Some(sampler) => {
                let kind = sampler.interpolation;
                return Ok((sampler, ExportedAs::Exact(kind)));
            }
            None => "morph targets keyed at different times or with different kinds",
        },
        Err(reason) => reason,
    };
    Ok((bake(tracks, fps)?, ExportedAs::Baked(reason)))
}

fn interleave(samplers: &[Sampler]) -> Option<Sampler> {
    let first = samplers.first()?;
    let same = samplers
        .iter()
        .all(|s| s.interpolation == first.interpolation && s.times == first.times);
    if !same {
        return None;
    }
    let per_key = if first.interpolation == "CUBICSPLINE" {
        3
    } else {
        1
    };
    let mut outputs = Vec::with_capacity(first.outputs.len() * samplers.len());
    for element in 0..first.times.len() * per_key {
        for s in samplers {
            outputs.push(*s.outputs.get(element)?);
        }
    }
    Some(Sampler {
        interpolation: first.interpolation,
        times: first.times.clone(),
        outputs,
    })
}

fn bake(tracks: &[&Track], fps: f64) -> Result<Sampler, GltfExportError> {
    let first = tracks
        .iter()
        .map(|t| t.first_frame())
        .fold(f64::INFINITY, f64::min);
    let last = tracks
        .iter()
        .map(|t| t.last_frame())
        .fold(f64::NEG_INFINITY, f64::max);
    let name = tracks.first().map_or("", |t| t.name());
    let frames = baked_frames(name, first, last)?;
    let mut outputs = Vec::with_capacity(frames.len() * tracks.len());
    for frame in &frames {
        for track in tracks {
            outputs.push(finite_value(track, *frame)?);
        }
    }
    Ok(Sampler {
        interpolation: "LINEAR",
        times: frames.iter().map(|f| f / fps).collect(),
        outputs,
    })
}
