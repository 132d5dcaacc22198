// `node scripts/report-screenshot.mjs RUN_HTML OUT.png [--width N] [--height N]`: opens a run
// report (`loom workflow report`) in headless Chromium and saves a PNG of the window, then prints
// how long Chromium took. Chromium is `$CHROMIUM`, else `chromium` (Debian's package:
// `apt-get install -y chromium`), `chromium-browser` or `google-chrome` on PATH. Every host name
// is made unresolvable, so the screenshot shows what the page holds by itself, with no network.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const usage = 'usage: node scripts/report-screenshot.mjs RUN_HTML OUT.png [--width N] [--height N]';

function fail(message) {
  process.stderr.write(`report-screenshot: ${message}\n`);
  process.exit(2);
}

function parseArguments(argv) {
  const positional = [];
  const size = { width: 1280, height: 1500 };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--width' || argument === '--height') {
      const value = Number(argv[index + 1]);
      if (!Number.isInteger(value) || value < 200 || value > 10000) {
        fail(`${argument} needs a whole number of pixels from 200 to 10000 (${usage})`);
      }
      size[argument.slice(2)] = value;
      index += 1;
    } else if (argument.startsWith('--')) fail(`unknown option ${argument} (${usage})`);
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

const { page, output, width, height } = parseArguments(process.argv.slice(2));
if (!existsSync(page) || !statSync(page).isFile()) fail(`${page} is not a file`);
const chromium = findChromium();
const profile = mkdtempSync(join(tmpdir(), 'report-screenshot-'));
rmSync(output, { force: true });
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
    `--window-size=${width},${height}`,
    `--screenshot=${output}`,
    pathToFileURL(page).href,
  ],
  { encoding: 'utf8', timeout: 120_000 },
);
const took = Math.round(performance.now() - started);
rmSync(profile, { recursive: true, force: true });
if (run.error) fail(`${chromium} could not run: ${run.error.message}`);
if (!existsSync(output)) {
  fail(`${chromium} exited ${run.status} without writing ${output}:\n${run.stderr}`);
}
process.stdout.write(
  `${output}: ${width}x${height}, ${statSync(output).size} bytes; Chromium took ${took} ms\n`,
);
