// `node scripts/report-screenshot.mjs RUN_HTML OUT.png [--width N] [--height N] [--timing]`: opens
// a run report (`loom workflow report`) in headless Chromium and saves a PNG of the window, then
// prints how long Chromium took; `--timing` also loads a copy with a probe script and prints the
// page's own DOMContentLoaded, load and laid-out times (ms from navigation). Chromium is `$CHROMIUM`, else `chromium` (Debian's package:
// `apt-get install -y chromium`), `chromium-browser` or `google-chrome` on PATH. Every host name
// is made unresolvable, so the screenshot shows what the page holds by itself, with no network.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const usage =
  'usage: node scripts/report-screenshot.mjs RUN_HTML OUT.png [--width N] [--height N] [--timing]';

function fail(message) {
  process.stderr.write(`report-screenshot: ${message}\n`);
  process.exit(2);
}

function parseArguments(argv) {
  const positional = [];
  const size = { width: 1280, height: 1500, timing: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--width' || argument === '--height') {
      const value = Number(argv[index + 1]);
      if (!Number.isInteger(value) || value < 200 || value > 10000) {
        fail(`${argument} needs a whole number of pixels from 200 to 10000 (${usage})`);
      }
      size[argument.slice(2)] = value;
      index += 1;
    } else if (argument === '--timing') size.timing = true;
    else if (argument.startsWith('--')) fail(`unknown option ${argument} (${usage})`);
    else positional.push(argument);
  }
  if (positional.length !== 2) fail(usage);
  return { page: resolve(positional[0]), output: resolve(positional[1]), ...size };
}

function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const folder of (process.env.PATH ?? '').split(delimiter)) {
      const path = join(folder, name);
      if (folder !== '' && existsSync(path)) return path;
    }
  }
  return fail(
    "no Chromium found: install Debian's package (apt-get install -y chromium) or set CHROMIUM to its path",
  );
}

/** Runs Chromium headless on `url` with `extra` flags; returns the run and its wall time. */
function runChromium(chromium, url, extra) {
  const profile = mkdtempSync(join(tmpdir(), 'report-screenshot-'));
  const started = performance.now();
  const run = spawnSync(
    chromium,
    [
      '--headless',
      '--disable-gpu',
      '--hide-scrollbars',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--host-resolver-rules=MAP * ~NOTFOUND',
      // Chromium's sandbox refuses to run as root (containers, CI).
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      `--user-data-dir=${profile}`,
      ...extra,
      url,
    ],
    { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 },
  );
  const took = Math.round(performance.now() - started);
  rmSync(profile, { recursive: true, force: true });
  if (run.error) fail(`${chromium} could not run: ${run.error.message}`);
  return { run, took };
}

/** Records the page's own timings at `load`, after forcing style and layout of the whole page. */
const PROBE = `<script>addEventListener('load',function(){var n=performance.getEntriesByType('navigation')[0];void document.documentElement.offsetHeight;document.body.setAttribute('data-timing',[Math.round(n.domContentLoadedEventEnd),Math.round(n.loadEventStart),Math.round(performance.now())].join(' '));});</script>`;

function measure(chromium, page) {
  const folder = mkdtempSync(join(tmpdir(), 'report-timing-'));
  const copy = join(folder, 'page.html');
  const html = readFileSync(page, 'utf8');
  const end = html.lastIndexOf('</body>');
  writeFileSync(copy, end === -1 ? html + PROBE : html.slice(0, end) + PROBE + html.slice(end));
  const { run } = runChromium(chromium, pathToFileURL(copy).href, ['--dump-dom']);
  rmSync(folder, { recursive: true, force: true });
  const timing = /data-timing="(\d+) (\d+) (\d+)"/.exec(run.stdout ?? '');
  if (!timing) fail(`no timing came back from ${chromium}:\n${run.stderr}`);
  return `DOMContentLoaded ${timing[1]} ms, load ${timing[2]} ms, laid out ${timing[3]} ms (from navigation)`;
}

const { page, output, width, height, timing } = parseArguments(process.argv.slice(2));
if (!existsSync(page) || !statSync(page).isFile()) fail(`${page} is not a file`);
const chromium = findChromium();
rmSync(output, { force: true });
const { run, took } = runChromium(chromium, pathToFileURL(page).href, [
  `--window-size=${width},${height}`,
  `--screenshot=${output}`,
]);
if (!existsSync(output)) {
  fail(`${chromium} exited ${run.status} without writing ${output}:\n${run.stderr}`);
}
process.stdout.write(
  `${output}: ${width}x${height}, ${statSync(output).size} bytes; Chromium took ${took} ms\n`,
);
if (timing) process.stdout.write(`${page}: ${measure(chromium, page)}\n`);
