//! The README's tour of the library, kept compiling: `cargo run --example tour` (from the repository root).

use inbetween::{Document, Ease, Interp, Track, Wrap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Build a track in code, validated exactly like a loaded document…
    let ball = Track::vec2("ball")
        .key(0.0, [0.0, 200.0])
        .interp(Interp::Tcb)
        .tcb(0.5, -0.8, 0.0)
        .key(20.0, [40.0, 0.0])
        .interp(Interp::Tcb)
        .key(40.0, [80.0, 120.0])
        .ease(Ease::Smoothstep)
        .key(60.0, [120.0, 0.0])
        .wrap(Wrap::PingPong)
        .build()?;
    let p = ball.eval(12.5); // any fractional frame; `p` derefs to &[f64]
    println!("ball at frame 12.5: {:?}", p.as_slice());

    // …or load a document, compile it and play it with a few additions per frame.
    let text = std::fs::read_to_string("examples/showcase.json")?;
    let doc = Document::from_json_str(&text, "examples/showcase.json")?;
    for track in doc.tracks() {
        println!("{} at frame 10: {:?}", track.name(), track.eval(10.0));
    }
    let compiled = doc.compile(&inbetween::compile::CompileOptions::default())?;
    let stream = inbetween::stream::Stream::from_bytes(&compiled.bytes)?; // validated once
    let mut player = inbetween::player::TrackPlayer::new(stream.track(0).unwrap());
    player.seek(0.0)?;
    let mut out = [0.0; 4];
    for _ in 0..120 {
        player.write(&mut out); // no allocation, no key search
        player.advance(); // `degree` additions per component
    }
    println!(
        "{} after 120 frames: {:?}",
        stream.track(0).unwrap().name(),
        &out[..2]
    );
    Ok(())
}
