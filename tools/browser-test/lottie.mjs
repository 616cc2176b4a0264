// Plays a Lottie file in lottie-web (npm lottie-web, SVG renderer) inside headless Debian chromium
// (playwright-core) and reads every imported property's value at every whole frame from
// lottie-web's own property objects.
//
//   node lottie.mjs --lottie anim.json --origins origins.json --out values.json
//        [--chromium /usr/bin/chromium]
//
// origins.json: [{track, layers: [i, j, ...], pointer: "/ks/p", component: null|c}], as
// inbetween::lottie_import::TrackOrigin says: `layers` walks renderer.elements[i].elements[j]…
// down to the layer element, `pointer` leads from that element's layer data to the property.
// For each root frame F in [ip, op) the animation is stepped with goToAndStop(F − ip, true); a
// property is read only where no element on the way is outside its in/out range (isInRange). Its
// value is the property object's `pv`: the interpolated value in Lottie's stored units, before
// lottie-web's unit factor `mult` (0.01 for scale and opacity, π/180 for angles, 255 for colour
// in the SVG renderer) is applied to make `v`; the script checks v = pv · mult (within float32
// rounding) so that the factor really is the only difference.
//
// values.json: {ip, op, tracks: {name: [[F, value...], ...]}, missing: [names not found]}.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

function parseArgs(argv) {
  const args = { chromium: '/usr/bin/chromium' };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    switch (key) {
      case '--lottie': args.lottie = value; break;
      case '--origins': args.origins = value; break;
      case '--out': args.out = value; break;
      case '--chromium': args.chromium = value; break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  for (const need of ['lottie', 'origins', 'out']) {
    if (!args[need]) throw new Error(`--${need} is required`);
  }
  return args;
}

/** Runs in the page: loads the animation, steps every frame, reads the properties. */
async function readInPage({ text, origins }) {
  const data = JSON.parse(text);
  const container = document.getElementById('stage');
  const anim = window.lottie.loadAnimation({
    container, renderer: 'svg', loop: false, autoplay: false, animationData: data,
  });
  await new Promise((resolve) => {
    if (anim.isLoaded) resolve();
    else anim.addEventListener('DOMLoaded', resolve);
  });
  const root = anim.animationData;
  const resolvePointer = (layer, pointer) => pointer.split('/').slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((obj, key) => (obj == null ? obj : obj[key]), layer);
  // Object-graph search from a layer element for the property object built from `target`.
  const skip = new Set(['comp', 'globalData', 'elements', 'data', 'parent', 'hierarchy', 'renderer',
    'animationItem', 'layers', 'container', '_parent', 'elem', 'effectsManager', 'baseElement',
    'layerElement', 'transformedElement', 'matteElement', 'maskManager', 'parentContainer']);
  const findProperty = (element, target) => {
    const seen = new Set();
    let level = [element];
    for (let depth = 0; depth < 9 && level.length; depth++) {
      const next = [];
      for (const obj of level) {
        if (!obj || typeof obj !== 'object' || seen.has(obj)) continue;
        seen.add(obj);
        if (obj.data === target && 'pv' in obj) return obj;
        if (obj instanceof Node || ArrayBuffer.isView(obj)) continue;
        for (const key of Object.keys(obj)) {
          if (!skip.has(key)) next.push(obj[key]);
        }
      }
      level = next;
    }
    return null;
  };
  const elementChain = (layers) => {
    const chain = [];
    let list = anim.renderer.elements;
    for (const i of layers) {
      const el = list && list[i];
      if (!el) return null;
      chain.push(el);
      list = el.elements;
    }
    return chain;
  };
  const ip = root.ip;
  const op = root.op;
  const tracks = {};
  const props = new Map();
  const factorProblems = [];
  for (let frame = Math.ceil(ip); frame < op; frame++) {
    anim.goToAndStop(frame - ip, true);
    for (const origin of origins) {
      const chain = elementChain(origin.layers);
      // Null layers (NullElement) have no in/out test: lottie-web updates them every frame.
      if (!chain || !chain.every((el) => el.isInRange !== false)) continue;
      let prop = props.get(origin.track);
      if (!prop) {
        const element = chain[chain.length - 1];
        prop = findProperty(element, resolvePointer(element.data, origin.pointer));
        if (!prop) continue;
        props.set(origin.track, prop);
      }
      const pv = typeof prop.pv === 'number' ? [prop.pv] : Array.from(prop.pv);
      const v = typeof prop.v === 'number' ? [prop.v] : Array.from(prop.v || []);
      const mult = prop.mult || 1;
      pv.forEach((x, c) => {
        if (v.length === pv.length && Math.abs(v[c] - x * mult) > 1e-6 * Math.max(1, Math.abs(x * mult))) {
          factorProblems.push(`${origin.track}[${c}] at ${frame}: v ${v[c]} ≠ pv ${x} × ${mult}`);
        }
      });
      const value = origin.component == null ? pv : [pv[origin.component]];
      (tracks[origin.track] ||= []).push([frame, ...value]);
    }
  }
  const missing = origins.map((o) => o.track).filter((t) => !props.has(t));
  return { ip, op, tracks, missing, factorProblems: factorProblems.slice(0, 20) };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const here = dirname(fileURLToPath(import.meta.url));
  const player = join(here, 'node_modules/lottie-web/build/player/lottie.js');
  const text = readFileSync(args.lottie, 'utf8');
  const origins = JSON.parse(readFileSync(args.origins, 'utf8'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'inbetween-lottie-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: args.chromium,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync',
    ],
  });
  const problems = [];
  try {
    const page = context.pages()[0] || (await context.newPage());
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith('file:') && !url.startsWith('data:') && !url.startsWith('about:')) {
        problems.push(`network request: ${url}`);
      }
    });
    await page.setContent('<!doctype html><html><body><div id="stage" style="width:400px;height:400px"></div></body></html>');
    await page.addScriptTag({ path: player });
    const result = await page.evaluate(readInPage, { text, origins });
    result.problems = problems;
    result.lottieWeb = await page.evaluate(() => window.lottie.version);
    writeFileSync(args.out, JSON.stringify(result));
    console.log(`lottie-web ${result.lottieWeb}: ${Object.keys(result.tracks).length} of ${origins.length} properties read over frames [${result.ip}, ${result.op})`);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
  if (problems.length) {
    console.log(problems.join('\n'));
    process.exit(1);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
