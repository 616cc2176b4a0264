// Drives a page written by `inbetween preview` in headless Debian chromium (playwright-core)
// and checks the values it shows against `inbetween sample`'s CSV.
//
//   node preview.mjs --page preview.html --expected sample.csv --screenshot shot.png
//        [--tolerances tol.json] [--tolerance T] [--chromium /usr/bin/chromium] [--max-frames N]
//
// --tolerances: a JSON object {column: largest allowed |shown − sampled|} (CSV column names);
// --tolerance: the same for columns it does not name (default 0). The page shows 9 significant
// digits, so |sampled| × 1e-8 is added for that rounding.
//
// Checks: the page loads with no console error, page error or request other than file:/data:;
// the value columns are the CSV's; play advances the frame and pause stops it; the scrubber
// (keyboard and input events) moves to the frames asked and the values shown there match; with
// loop off, play stops at the last frame; with loop on, it wraps to the first. Prints one line
// per check and a summary; exits 1 on the first failure.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

function parseArgs(argv) {
  const args = { tolerance: 0, chromium: '/usr/bin/chromium', maxFrames: 400 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    switch (key) {
      case '--page': args.page = value; break;
      case '--expected': args.expected = value; break;
      case '--screenshot': args.screenshot = value; break;
      case '--tolerances': args.tolerances = JSON.parse(readFileSync(value, 'utf8')); break;
      case '--tolerance': args.tolerance = Number(value); break;
      case '--chromium': args.chromium = value; break;
      case '--max-frames': args.maxFrames = Number(value); break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  for (const need of ['page', 'expected', 'screenshot']) {
    if (!args[need]) throw new Error(`--${need} is required`);
  }
  return args;
}

/** RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks) → rows of fields. */
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += ch;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

class CheckFailed extends Error {}

/** Hovering over a curve names the segment under the pointer in full (a label cut with "…" to
 *  fit, or left out, still reads whole): a sweep across every curve meets every segment's
 *  title, "segment K: KIND · EASE". */
async function checkSegmentTitles(page) {
  const missing = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('preview-data').textContent);
    const out = [];
    [...document.querySelectorAll('canvas[data-ticks]')].forEach((canvas, i) => {
      const t = data.tracks[i];
      if (t.path === 'arclength') return;
      const r = canvas.getBoundingClientRect();
      const seen = new Set();
      for (let x = 0; x < r.width; x += 0.5) {
        canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + x, clientY: r.top + 8, bubbles: true }));
        if (canvas.title) seen.add(canvas.title);
      }
      t.keys.forEach((k, n) => {
        if (n + 1 >= t.keys.length || !k.kind) return;
        if (t.keys[n + 1].frame <= data.from || k.frame >= data.to) return;
        const want = `segment ${n}: ${k.kind}${k.ease && k.ease !== 'linear' ? ' · ' + k.ease : ''}`;
        if (!seen.has(want)) out.push(`${t.name}: "${want}" (seen ${[...seen].join(' | ')})`);
      });
    });
    return out;
  });
  if (missing.length) fail(`hover titles missing: ${missing.join('; ')}`);
  log('ok: hovering names every segment in full');
}

/** Every curve's value axis: round ticks (equal steps of 1, 2 or 5 × 10^k, each tick a multiple
 *  of the step, no more decimals than the step needs), labels inside the canvas (a minus sign or
 *  leading digit is never clipped), and a range of at least 100 × the track's tolerance. */
async function checkAxes(page) {
  const axes = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('preview-data').textContent);
    return [...document.querySelectorAll('canvas[data-ticks]')].map((c, i) => ({
      track: data.tracks[i].name,
      tolerance: data.tracks[i].tolerance,
      ticks: JSON.parse(c.dataset.ticks),
      range: JSON.parse(c.dataset.range),
      labelsLeft: Number(c.dataset.labelsLeft),
    }));
  });
  if (!axes.length) fail('no curve axes found');
  for (const { track, tolerance, ticks, range, labelsLeft } of axes) {
    const where = `curve of ${track}`;
    if (ticks.length < 2) fail(`${where}: ${ticks.length} tick labels`);
    const values = ticks.map(Number);
    const step = values[1] - values[0];
    const exponent = Math.floor(Math.log10(step) + 1e-9);
    const mantissa = step / Math.pow(10, exponent);
    if (![1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6)) fail(`${where}: tick step ${step} is not 1, 2 or 5 × 10^k (${ticks})`);
    const decimals = Math.max(0, -exponent);
    ticks.forEach((text, k) => {
      if (!/^-?\d+(\.\d+)?$/.test(text)) fail(`${where}: tick "${text}" is not plain digits`);
      if ((text.split('.')[1] || '').length !== decimals) fail(`${where}: tick "${text}" should have ${decimals} decimals`);
      if (Math.abs(values[k] / step - Math.round(values[k] / step)) > 1e-6) fail(`${where}: tick ${text} is not a multiple of ${step}`);
      if (k > 0 && Math.abs(values[k] - values[k - 1] - step) > step * 1e-6) fail(`${where}: ticks ${ticks} are not evenly spaced`);
    });
    if (!(labelsLeft >= 0)) fail(`${where}: tick labels start at x = ${labelsLeft}, outside the canvas`);
    if (!(range[1] - range[0] >= 100 * tolerance * (1 - 1e-9))) fail(`${where}: range ${range} spans less than 100 × tolerance ${tolerance}`);
  }
  log(`ok: ${axes.length} curve axes with round ticks, labels inside, range ≥ 100 × tolerance`);
}

/** A value as the page must show it: plain decimal digits (no exponent, no ellipsis, no "-0")
 *  with at most ⌈−log10 tolerance⌉ + 2 decimals, so float noise such as -4.98212582e-15 on a
 *  value that is 0 cannot show. */
function checkNumberText(text, tolerance, where) {
  if (!/^-?\d+(\.\d+)?$/.test(text)) fail(`${where}: "${text}" is not plain decimal digits`);
  if (text === '-0') fail(`${where}: shows -0`);
  const decimals = (text.split('.')[1] || '').length;
  const allowed = Math.ceil(-Math.log10(tolerance)) + 2;
  if (tolerance > 0 && decimals > Math.max(0, allowed)) {
    fail(`${where}: "${text}" has ${decimals} decimals, more than the ${allowed} its tolerance ${tolerance} needs`);
  }
}
const fail = (message) => { throw new CheckFailed(message); };
const log = (message) => console.log(message);

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [header, ...body] = parseCsv(readFileSync(args.expected, 'utf8'));
  const columns = header.slice(1);
  const expected = new Map(body.map((r) => [Number(r[0]), r.slice(1).map(Number)]));
  const tolerance = columns.map((c) => (args.tolerances && c in args.tolerances ? args.tolerances[c] : args.tolerance));

  const problems = [];
  const userDataDir = mkdtempSync(join(tmpdir(), 'inbetween-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: args.chromium,
    headless: true,
    viewport: { width: 1360, height: 900 },
    deviceScaleFactor: 1,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync',
    ],
  });
  let worst = { error: 0, frame: null, column: null };
  let checkedFrames = 0;
  try {
    const page = context.pages()[0] || (await context.newPage());
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith('file:') && !url.startsWith('data:')) problems.push(`network request: ${url}`);
    });
    page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));

    await page.goto(pathToFileURL(resolve(args.page)).href, { waitUntil: 'load' });
    try {
      await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 15000 });
    } catch (err) {
      fail(`the page did not start: ${problems.join('; ') || err.message}`);
    }
    if (problems.length) fail(problems.join('; '));
    log('ok: the page loaded with no console error and no network request');

    const shownColumns = await page.$$eval('#values td[data-column]', (tds) => tds.map((td) => td.dataset.column));
    if (JSON.stringify(shownColumns) !== JSON.stringify(columns)) {
      fail(`value cells ${JSON.stringify(shownColumns)} are not the CSV columns ${JSON.stringify(columns)}`);
    }
    log(`ok: ${columns.length} value cells, one per CSV column`);
    await checkAxes(page);
    await checkSegmentTitles(page);
    const frames = [...expected.keys()].sort((a, b) => a - b);
    const [first, last] = [frames[0], frames[frames.length - 1]];
    const frameShown = async () => Number(await page.textContent('#frame'));

    /** The values on the page equal the CSV's at the frame the page says it shows. */
    async function checkValues(context) {
      const { frame, cells, cut } = await page.evaluate(() => {
        const tds = [...document.querySelectorAll('#values td[data-column]')];
        return {
          frame: Number(document.getElementById('frame').textContent),
          cells: tds.map((td) => td.textContent),
          // A cell whose text is wider than the cell is cut (or spills): never.
          cut: tds.filter((td) => td.scrollWidth > td.clientWidth).map((td) => td.dataset.column),
        };
      });
      const row = expected.get(frame);
      if (!row) fail(`${context}: frame ${frame} shown, not in the CSV`);
      if (cut.length) fail(`${context}: frame ${frame}, cells wider than their column: ${cut.join(', ')}`);
      cells.forEach((text, c) => {
        checkNumberText(text, tolerance[c], `${context}: frame ${frame}, ${columns[c]}`);
        const shown = Number(text);
        const err = Math.abs(shown - row[c]);
        const limit = tolerance[c] + Math.abs(row[c]) * 1e-8;
        if (!(err <= limit)) {
          fail(`${context}: frame ${frame}, ${columns[c]}: shown ${text}, sample ${row[c]} (|diff| ${err} > ${limit})`);
        }
        if (err > worst.error) worst = { error: err, frame, column: columns[c] };
      });
      checkedFrames++;
      return frame;
    }
    /** Moves the scrubber as a drag does (value set, then an input event). */
    async function scrubTo(frame) {
      await page.$eval('#scrubber', (s, v) => {
        s.value = String(v);
        s.dispatchEvent(new Event('input', { bubbles: true }));
      }, frame - first);
      const shown = await frameShown();
      if (shown !== frame) fail(`scrubber set to frame ${frame}, the page shows ${shown}`);
    }
    const playing = async () => (await page.getAttribute('#play', 'data-playing')) === 'true';

    if ((await frameShown()) !== first) fail(`the page opens at frame ${await frameShown()}, expected ${first}`);
    await checkValues('at load');

    // Play, wait for the frame to move, pause.
    await page.click('#play');
    if (!(await playing())) fail('#play did not start playback');
    // Advancing is proven by the frame leaving `first`; the paused frame itself may be `first`
    // again when a loaded machine lets playback wrap around before the pause click lands.
    const moved = await page
      .waitForFunction((f) => Number(document.getElementById('frame').textContent) !== f, first, { timeout: 15000 })
      .then(() => true, () => false);
    if (!moved) fail('the frame did not advance while playing');
    await page.click('#play');
    if (await playing()) fail('#play did not pause');
    const paused = await frameShown();
    await page.waitForTimeout(300);
    if ((await frameShown()) !== paused) fail('the frame moved after pause');
    await checkValues('after play and pause');
    log(`ok: play advanced ${first} → ${paused}, pause held it`);

    // The scrubber with the keyboard.
    await page.focus('#scrubber');
    await page.keyboard.press('Home');
    if ((await frameShown()) !== first) fail('Home on the scrubber did not go to the first frame');
    for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowRight');
    const stepped = Math.min(last, first + 3);
    if ((await frameShown()) !== stepped) fail(`three → on the scrubber show ${await frameShown()}, expected ${stepped}`);
    await checkValues('scrubber keyboard');
    await page.keyboard.press('End');
    if ((await frameShown()) !== last) fail('End on the scrubber did not go to the last frame');
    await checkValues('scrubber End');
    log('ok: scrubber keys Home, →, End');

    // The scrubber at many frames: every frame, or an even spread of at most --max-frames.
    const stride = Math.max(1, Math.ceil(frames.length / args.maxFrames));
    const targets = frames.filter((_, k) => k % stride === 0);
    if (targets[targets.length - 1] !== last) targets.push(last);
    for (const f of targets) {
      await scrubTo(f);
      await checkValues('scrubber');
    }
    log(`ok: scrubbed to ${targets.length} frames, values match the sample`);

    // Loop off: playing from near the end stops at the last frame.
    if (last > first) {
      await page.selectOption('#speed', '4');
      await page.setChecked('#loop', false);
      await scrubTo(Math.max(first, last - 8));
      await page.click('#play');
      await page.waitForFunction(() => document.getElementById('play').dataset.playing === 'false', null, { timeout: 15000 });
      if ((await frameShown()) !== last) fail(`with loop off, play stopped at ${await frameShown()}, not ${last}`);
      await checkValues('loop off, stopped');
      // Loop on: playing from near the end wraps to the start.
      await page.setChecked('#loop', true);
      const from = Math.max(first, last - 4);
      await scrubTo(from);
      await page.click('#play');
      await page.waitForFunction((f) => Number(document.getElementById('frame').textContent) < f, from, { timeout: 15000 });
      await page.click('#play');
      await checkValues('loop on, wrapped');
      log('ok: loop off stops at the last frame, loop on wraps to the first');
      await page.selectOption('#speed', '1');
    }

    if (problems.length) fail(problems.join('; '));

    // The artifact: the page at a frame where things are moving.
    await scrubTo(first + Math.round((last - first) * 0.4));
    await page.screenshot({ path: args.screenshot, fullPage: true });
    log(`ok: screenshot ${args.screenshot}`);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
  log(`PASS: ${checkedFrames} frame checks × ${columns.length} columns; largest |shown − sample| ` +
    `${worst.error.toExponential(3)}${worst.column ? ` (${worst.column} at frame ${worst.frame})` : ''}`);
}

main().catch((err) => {
  console.log(`FAIL: ${err instanceof CheckFailed ? err.message : err.stack || err}`);
  process.exit(1);
});
