//! The plugin in a headless Bevy app: asset loading of every file type, load errors, and both ways of playing checked against exact evaluation of the document.

use std::path::Path;
use std::time::Duration;

use bevy_animation::graph::{AnimationGraph, AnimationGraphHandle};
use bevy_animation::{
    AnimatedBy, AnimationClip, AnimationPlayer, AnimationPlugin, AnimationTargetId,
};
use bevy_app::App;
use bevy_asset::{AssetServer, Assets, Handle, LoadState};
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use bevy_ecs::name::Name;
use bevy_time::TimeUpdateStrategy;
use bevy_transform::components::Transform;
use inbetween::gltf_import::{import_gltf_path, ImportOptions};
use inbetween::Document;
use inbetween_bevy::{
    transform_clip, BankAnimation, BankPlugin, BankPool, BankTarget, BindError, DocumentSettings,
    HeadlessPlugins, InbetweenPlugin, InbetweenStream, TransformField,
};

/// Tolerance every stream of these tests is compiled with (absolute, value units).
const TOL: f64 = 1e-5;
/// The walk cycle's keys are 30 fps.
const FPS: f64 = 30.0;

fn corpus_walk() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/gltf/character_walk.gltf")
}

/// The walk cycle as a document, imported exactly as the loader imports it.
fn walk_document() -> Document {
    import_gltf_path(
        &corpus_walk(),
        &ImportOptions {
            fps: FPS,
            ..ImportOptions::default()
        },
    )
    .unwrap()
}

/// `Time`'s step for `hz` updates per second (whole nanoseconds).
fn delta(hz: f64) -> Duration {
    Duration::from_secs_f64(1.0 / hz)
}

/// A headless app reading assets from `root`, `Time` advancing [`delta`] per update.
fn app(root: &Path, hz: f64) -> App {
    app_with(root, hz, |_| {})
}

/// The same, with more plugins added by `more`.
fn app_with(root: &Path, hz: f64, more: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins(HeadlessPlugins {
        asset_root: root.to_string_lossy().into_owned(),
    })
    .add_plugins((AnimationPlugin, InbetweenPlugin))
    .insert_resource(TimeUpdateStrategy::ManualDuration(delta(hz)));
    more(&mut app);
    app.finish();
    app.cleanup();
    app
}

/// Updates until `handle` is loaded (`Ok`) or failed (`Err` with Bevy's error message).
fn wait(app: &mut App, handle: &Handle<InbetweenStream>) -> Result<InbetweenStream, String> {
    for _ in 0..20_000 {
        app.update();
        match app.world().resource::<AssetServer>().load_state(handle) {
            LoadState::Loaded => {
                let assets = app.world().resource::<Assets<InbetweenStream>>();
                return assets
                    .get(handle)
                    .cloned()
                    .ok_or_else(|| "loaded but absent".into());
            }
            LoadState::Failed(e) => return Err(e.to_string()),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    Err("timed out".into())
}

fn settings(s: &mut DocumentSettings) {
    s.gltf_fps = FPS;
    s.tolerance = Some(TOL);
}

/// A temporary asset folder holding the walk cycle as `.gltf`, `.glb`, `.ibs` and a JSON document.
fn asset_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(corpus_walk(), dir.path().join("walk.gltf")).unwrap();
    let doc = walk_document();
    let (glb, _) = inbetween::gltf_export::export_gltf(&doc, true).unwrap();
    std::fs::write(dir.path().join("walk.glb"), glb).unwrap();
    let options = inbetween::compile::CompileOptions {
        tolerance: Some(TOL),
        ..Default::default()
    };
    std::fs::write(
        dir.path().join("walk.ibs"),
        doc.compile(&options).unwrap().bytes,
    )
    .unwrap();
    std::fs::write(dir.path().join("glow.json"), GLOW_JSON).unwrap();
    dir
}

/// A document with a TCB vec3, an eased slerp and a Bezier scalar, looping.
const GLOW_JSON: &str = r#"{
  "inbetween": 1, "fps": 24,
  "tracks": [
    { "name": "pos", "type": "vec3", "wrap": "loop", "keys": [
      { "frame": 0, "value": [0, 1, 2], "interp": "tcb", "tcb": [0.5, -0.3, 0.2] },
      { "frame": 10, "value": [3, -1, 0.5], "interp": "tcb" },
      { "frame": 25, "value": [-2, 0, 4], "interp": "tcb" },
      { "frame": 40, "value": [0, 1, 2] } ] },
    { "name": "spin", "type": "quat", "wrap": "ping_pong", "keys": [
      { "frame": 0, "value": [0, 0, 0, 1], "interp": "slerp", "ease": "in_out_sine" },
      { "frame": 30, "value": [0, 0.7071068, 0, 0.7071068], "interp": "slerp" },
      { "frame": 40, "value": [0.5, 0.5, 0.5, 0.5] } ] },
    { "name": "glow", "type": "scalar", "wrap": "loop", "keys": [
      { "frame": 0, "value": 0, "interp": { "bezier": { "out": 0.6, "in": 1.4 } } },
      { "frame": 12, "value": 1, "interp": "linear" },
      { "frame": 40, "value": 0 } ] }
  ]
}"#;

/// `|played − exact| ≤ tolerance + half an f32 ulp of the value` (what writing f32 adds),
/// component by component; names the entity, track and frame otherwise.
fn assert_close(what: &str, played: &[f32], exact: &[f64], tolerance: f64) {
    for (c, (&p, &e)) in played.iter().zip(exact).enumerate() {
        let bound = tolerance + f64::from(f32::EPSILON) * e.abs().max(1.0);
        let err = (f64::from(p) - e).abs();
        assert!(
            err <= bound,
            "{what}, component {c}: played {p}, exact {e}, error {err:e} > {bound:e}"
        );
    }
}

fn transform_values(t: &Transform, field: &str) -> Vec<f32> {
    match field {
        "translation" => t.translation.to_array().to_vec(),
        "scale" => t.scale.to_array().to_vec(),
        _ => t.rotation.to_array().to_vec(),
    }
}

#[test]
fn every_file_type_loads_to_the_same_stream() {
    let dir = asset_dir();
    let mut app = app(dir.path(), 60.0);
    let reference = walk_document();
    for file in ["walk.ibs", "walk.gltf", "walk.glb"] {
        let server = app.world().resource::<AssetServer>();
        let handle = if file.ends_with(".ibs") {
            server.load(file)
        } else {
            server.load_builder().with_settings(settings).load(file)
        };
        let stream = wait(&mut app, &handle).unwrap_or_else(|e| panic!("{file}: {e}"));
        let s = stream.stream();
        assert_eq!(s.track_count(), reference.tracks().len(), "{file}");
        assert_eq!(s.fps(), FPS, "{file}");
        for (played, exact) in s.tracks().zip(reference.tracks()) {
            assert_eq!(played.name(), exact.name(), "{file}");
            assert_eq!(played.tolerance(), TOL, "{file}");
            // The export round trip stores values as f32: within 1e-6 of the keys.
            let mut player = inbetween::player::TrackPlayer::new(played);
            for frame in [0.0, 7.5, 12.0, 24.25] {
                player.seek(frame).unwrap();
                let v = player.value();
                let e = exact.eval(frame);
                assert_close(
                    &format!("{file} {} frame {frame}", played.name()),
                    &v.map(|x| x as f32),
                    &e,
                    TOL + 2e-6,
                );
            }
        }
    }
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<InbetweenStream>("glow.json");
    let stream = wait(&mut app, &handle).unwrap();
    let names: Vec<_> = stream
        .stream()
        .tracks()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["pos", "spin", "glow"]);
    assert_eq!(stream.fps(), 24.0);
}

#[test]
fn malformed_assets_fail_with_our_message_and_the_app_goes_on() {
    let dir = asset_dir();
    let mut ibs = std::fs::read(dir.path().join("walk.ibs")).unwrap();
    let last = ibs.len() - 1;
    ibs[last] ^= 0xff; // breaks the checksum
    std::fs::write(dir.path().join("bad.ibs"), &ibs).unwrap();
    std::fs::write(dir.path().join("short.ibs"), b"IBS").unwrap();
    std::fs::write(dir.path().join("bad.json"), r#"{"inbetween": 1, "fps": 30, "tracks": [{"name": "a", "type": "vec2", "keys": [{"frame": 0, "value": [1, 2, 3]}]}]}"#).unwrap();
    std::fs::write(dir.path().join("bad.gltf"), "{ not gltf").unwrap();
    std::fs::write(
        dir.path().join("bad.glb"),
        b"glTF\x02\x00\x00\x00\xff\xff\xff\xff",
    )
    .unwrap();
    let mut app = app(dir.path(), 60.0);
    let server = app.world().resource::<AssetServer>().clone();
    let cases = [
        (
            server.load::<InbetweenStream>("bad.ibs"),
            "bad.ibs: not a valid .ibs stream: ",
            "checksum",
        ),
        (
            server.load("short.ibs"),
            "short.ibs: not a valid .ibs stream: ",
            "",
        ),
        (
            server.load("bad.json"),
            "bad.json",
            "key 0, field \"value\"",
        ),
        (server.load("bad.gltf"), "bad.gltf: ", "glTF"),
        (server.load("bad.glb"), "bad.glb: not a glTF 2.0 file", ""),
        (
            server
                .load_builder()
                .with_settings(|s: &mut DocumentSettings| s.tolerance = Some(-1.0))
                .load("walk.gltf"),
            "walk.gltf: loader setting tolerance: expected a finite number > 0, found -1",
            "",
        ),
        (
            server
                .load_builder()
                .with_settings(|s: &mut DocumentSettings| s.gltf_animation = Some("run".into()))
                .load("walk.gltf"),
            "walk.gltf: ",
            "run",
        ),
    ];
    for (handle, prefix, detail) in &cases {
        let err = wait(&mut app, handle).expect_err("a malformed asset must fail");
        assert!(
            err.contains(prefix) && err.contains(detail),
            "{err:?} lacks {prefix:?} / {detail:?}"
        );
    }
    // The app still runs and still loads good assets.
    // (A path is loaded once, whatever the settings: the failed walk.gltf stays failed.)
    let good = server
        .load_builder()
        .with_settings(settings)
        .load("walk.glb");
    if let Err(e) = wait(&mut app, &good) {
        panic!("{e}");
    }
}

/// A skeleton of the walk cycle, its bones bound through `BankAnimation` with a clock of its own.
struct Walker {
    start: f64,
    speed: f64,
    paused: bool,
    repeat: bool,
    whole: bool,
}

/// A walker from its start frame, speed and the words `paused`, `repeat`, `whole` (frames).
fn walker(start: f64, speed: f64, flags: &str) -> Walker {
    Walker {
        start,
        speed,
        paused: flags.contains("paused"),
        repeat: flags.contains("repeat"),
        whole: flags.contains("whole"),
    }
}

#[test]
fn bank_crowd_equals_exact_evaluation_after_updates() {
    let dir = asset_dir();
    let reference = walk_document();
    let walkers = [
        walker(0.0, 1.0, "repeat"),
        walker(7.0, 1.0, "repeat"),
        walker(7.0, 0.5, ""),
        walker(3.25, -1.0, "repeat"),
        walker(11.0, 1.0, "repeat paused"),
        walker(20.0, 2.0, ""),
        walker(7.0, 1.0, "repeat whole"),
        walker(2.5, -0.7, "repeat whole"),
    ];
    for hz in [30.0, 60.0, 48.0] {
        let mut app = app(dir.path(), hz);
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load_builder()
            .with_settings(settings)
            .load("walk.gltf");
        let stream = wait(&mut app, &handle).unwrap();
        let nodes: Vec<String> = reference
            .tracks()
            .iter()
            .filter_map(|t| t.name().rsplit_once('/'))
            .map(|(n, _)| n.to_owned())
            .collect();
        let mut spawned: Vec<(Entity, usize, String)> = Vec::new();
        for (w, walker) in walkers.iter().enumerate() {
            for node in &nodes {
                let mut anim = BankAnimation::new(handle.clone(), walker.start)
                    .transform_node(&stream, node)
                    .with_speed(walker.speed);
                anim.paused = walker.paused;
                anim.repeat = walker.repeat;
                anim.whole_frames = walker.whole;
                let e = app.world_mut().spawn((Transform::default(), anim)).id();
                spawned.push((e, w, node.clone()));
            }
        }
        let (first, last) = stream.span();
        for updates in 1..=40 {
            app.update();
            for (e, w, node) in &spawned {
                let walker = &walkers[*w];
                let anim = app.world().get::<BankAnimation>(*e).unwrap();
                // The clock: start + n · Δ (Δ = Time's delta · fps · speed), folded into the span
                // when looping.
                let moved = if walker.paused {
                    0.0
                } else {
                    updates as f64 * delta(hz).as_secs_f64() * FPS * walker.speed
                };
                let mut expected = walker.start + moved;
                if walker.repeat && !(first..last).contains(&expected) {
                    expected = first + (expected - first).rem_euclid(last - first);
                }
                assert!(
                    (anim.frame() - expected).abs() <= 1e-9,
                    "walker {w}: frame {} after {updates} updates, expected {expected}",
                    anim.frame()
                );
                let t = app.world().get::<Transform>(*e).unwrap();
                for field in ["translation", "rotation", "scale"] {
                    let name = format!("{node}/{field}");
                    let Some(track) = reference.tracks().iter().find(|t| t.name() == name) else {
                        continue;
                    };
                    let played = anim.played_frame();
                    assert_eq!(
                        played,
                        if walker.whole {
                            anim.frame().floor()
                        } else {
                            anim.frame()
                        }
                    );
                    let exact = track.eval(played);
                    let what =
                        format!("{hz} Hz, walker {w}, {name}, update {updates}, frame {played}");
                    assert_close(&what, &transform_values(t, field), &exact, TOL);
                }
            }
        }
    }
}

/// A component of one float, bound through the `BankTarget` trait.
#[derive(Component, Debug, Default)]
struct Glow(f32);

impl BankTarget for Glow {
    type Field = ();
    fn components((): ()) -> usize {
        1
    }
    fn write(&mut self, (): (), values: &[f32]) {
        self.0 = values.first().copied().unwrap_or(self.0);
    }
}

#[test]
fn any_component_plays_through_the_binding_trait_and_bad_bindings_are_reported() {
    let dir = asset_dir();
    let mut app = app_with(dir.path(), 24.0, |app| {
        app.add_plugins(BankPlugin::<Glow>::default());
    });
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<InbetweenStream>("glow.json");
    wait(&mut app, &handle).unwrap();
    let text = GLOW_JSON;
    let doc = Document::from_json_str(text, "glow.json").unwrap();
    let glow = app
        .world_mut()
        .spawn((
            Glow::default(),
            BankAnimation::<Glow>::new(handle.clone(), 5.0).bind((), "glow"),
        ))
        .id();
    let pos = app
        .world_mut()
        .spawn((
            Transform::default(),
            BankAnimation::<Transform>::new(handle.clone(), 5.0)
                .bind(TransformField::Translation, "pos")
                .bind(TransformField::Rotation, "spin"),
        ))
        .id();
    let mut bound = |field, track: &str| {
        let anim = BankAnimation::<Transform>::new(handle.clone(), 0.0).bind(field, track);
        app.world_mut()
            .spawn((Transform::from_xyz(9.0, 9.0, 9.0), anim))
            .id()
    };
    let missing = bound(TransformField::Scale, "nope");
    let wrong = bound(TransformField::Rotation, "pos");
    let stream = app
        .world()
        .resource::<Assets<InbetweenStream>>()
        .get(&handle)
        .unwrap()
        .clone();
    let tol = |name: &str| stream.stream().track_by_name(name).unwrap().tolerance();
    for updates in 1..=100 {
        app.update();
        let frame = 5.0 + updates as f64; // 24 Hz on a 24 fps stream: one frame per update
        let exact = |name: &str| {
            doc.tracks()
                .iter()
                .find(|t| t.name() == name)
                .unwrap()
                .eval(frame)
        };
        assert_close(
            "glow",
            &[app.world().get::<Glow>(glow).unwrap().0],
            &exact("glow"),
            tol("glow"),
        );
        let t = app.world().get::<Transform>(pos).unwrap();
        assert_close("pos", &t.translation.to_array(), &exact("pos"), tol("pos"));
        assert_close("spin", &t.rotation.to_array(), &exact("spin"), tol("spin"));
    }
    let world = app.world();
    let pool = world.resource::<BankPool<Transform>>();
    let error = |e| pool.error(world.get::<BankAnimation>(e).unwrap());
    assert_eq!(error(pos), None);
    assert_eq!(
        error(missing),
        Some(&BindError::NoSuchTrack {
            track: "nope".into(),
            field: "Scale".into()
        })
    );
    assert_eq!(
        error(wrong),
        Some(&BindError::Components {
            track: "pos".into(),
            field: "Rotation".into(),
            expected: 4,
            found: 3
        })
    );
    for e in [missing, wrong] {
        assert_eq!(
            world.get::<Transform>(e).unwrap().translation.to_array(),
            [9.0, 9.0, 9.0]
        );
    }
}

#[test]
fn animation_player_plays_track_curves_as_exact_evaluation() {
    let dir = asset_dir();
    let reference = walk_document();
    let mut app = app(dir.path(), 60.0);
    let handle = app.world().resource::<AssetServer>().load("walk.ibs");
    let stream = wait(&mut app, &handle).unwrap();
    let (clip, nodes) = transform_clip(&stream).unwrap();
    assert_eq!(nodes.len() * 3, reference.tracks().len());
    let world = app.world_mut();
    let clip = world.resource_mut::<Assets<AnimationClip>>().add(clip);
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
    let mut player = AnimationPlayer::default();
    player.play(node).repeat().set_speed(0.75).seek_to(0.3);
    let player = world.spawn((player, AnimationGraphHandle(graph))).id();
    let bones: Vec<(Entity, String)> = nodes
        .iter()
        .map(|n| {
            let name = Name::new(n.clone());
            let id = AnimationTargetId::from_name(&name);
            (
                world
                    .spawn((name, id, AnimatedBy(player), Transform::default()))
                    .id(),
                n.clone(),
            )
        })
        .collect();
    // Bevy prepares a new graph for evaluation (`thread_animation_graphs`) during the first
    // update, after `animate_targets` ran: the bones move from the second update on.
    app.update();
    for update in 1..=90 {
        app.update();
        let seek = app
            .world()
            .get::<AnimationPlayer>(player)
            .unwrap()
            .animation(node)
            .unwrap()
            .seek_time();
        let frame = f64::from(seek) * FPS;
        for (e, n) in &bones {
            let t = app.world().get::<Transform>(*e).unwrap();
            for field in ["translation", "rotation", "scale"] {
                let name = format!("{n}/{field}");
                let exact = reference
                    .tracks()
                    .iter()
                    .find(|t| t.name() == name)
                    .unwrap()
                    .eval(frame);
                assert_close(
                    &format!("update {update}, {name}, frame {frame}"),
                    &transform_values(t, field),
                    &exact,
                    TOL,
                );
            }
        }
    }
}
