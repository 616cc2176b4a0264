//! `inbetween inspect`: what a compiled stream holds, track by track.

use std::path::Path;

use inbetween::stream::{Stream, StreamValueType, StreamWrap};

use crate::error::CliError;
use crate::play::read_stream;

fn type_name(t: StreamValueType) -> &'static str {
    match t {
        StreamValueType::Scalar => "scalar",
        StreamValueType::Vec2 => "vec2",
        StreamValueType::Vec3 => "vec3",
        StreamValueType::Vec4 => "vec4",
        StreamValueType::Color => "color",
        StreamValueType::Quat => "quat",
    }
}

fn wrap_name(w: StreamWrap) -> &'static str {
    match w {
        StreamWrap::Clamp => "clamp",
        StreamWrap::Loop => "loop",
        StreamWrap::PingPong => "ping_pong",
    }
}

/// Renders the report; with `pieces`, every piece of every track too.
pub fn render(stream: &Stream<'_>, pieces: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "stream: {} bytes, {} tracks, {} fps\n\n",
        stream.as_bytes().len(),
        stream.track_count(),
        stream.fps()
    ));
    out.push_str(&format!(
        "{:<16} {:<7} {:<6} {:<10} {:>14} {:>7} {:>22} {:>7} {:>10} {:>10} {:>8} {:>8}\n",
        "track",
        "type",
        "prec",
        "wrap",
        "frames",
        "pieces",
        "degrees 0..8",
        "bytes",
        "tolerance",
        "max error",
        "@frame",
        "adds/fr"
    ));
    for track in stream.tracks() {
        let s = track.summary();
        let hist: Vec<String> = s.degree_histogram.iter().map(|n| n.to_string()).collect();
        out.push_str(&format!(
            "{:<16} {:<7} {:<6} {:<10} {:>14} {:>7} {:>22} {:>7} {:>10.2e} {:>10.2e} {:>8} {:>8.2}\n",
            track.name(),
            type_name(track.value_type()),
            track.precision().name(),
            wrap_name(track.wrap()),
            format!("{}..{}", track.first_frame(), track.last_frame()),
            s.pieces,
            hist.join(" "),
            s.bytes,
            s.tolerance,
            s.max_error,
            s.max_error_frame,
            s.additions_per_frame
        ));
        if pieces {
            for p in track.pieces() {
                out.push_str(&format!(
                    "    piece {:>5}: frames {} .. {} (origin {}), degree {}{}\n",
                    p.index,
                    p.start,
                    p.end,
                    p.origin,
                    p.degree,
                    if track.precision() == inbetween::stream::Precision::Fixed {
                        format!(", scale 2^-{}", p.exponent)
                    } else {
                        String::new()
                    }
                ));
            }
        }
    }
    out
}

/// Runs `inbetween inspect`. A document (.json) or glTF file (.gltf/.glb) is compiled in memory
/// with the default options first.
pub fn run(input: &Path, pieces: bool) -> Result<(), CliError> {
    let is_document = crate::input::is_gltf(input)
        || input
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let bytes = if is_document {
        let doc = crate::input::load_document(input)?;
        crate::compile::compile_document(
            input,
            &doc,
            &inbetween::compile::CompileOptions::default(),
        )?
        .bytes
    } else {
        read_stream(input)?
    };
    let stream = crate::play::parse_stream(input, &bytes)?;
    print!("{}", render(&stream, pieces));
    Ok(())
}
