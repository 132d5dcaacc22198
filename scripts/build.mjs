// `npm run build`: tsc and scripts/bundle.mjs write a new build into its own folder beside the
// old (`.dist-ID/`, at the repository's top so `../../package.json` and `../../bin/loom` still
// resolve from `bundle/`), then `dist`, a symbolic link, is swapped to it in ONE rename, which is
// atomic: a `loom` starting meanwhile sees the old build or the new one, never half of one. A
// running `loom` keeps working: bin/loom resolves the link once at start and loads every later
// chunk from that build's own folder, which this keeps (the two builds before the current one
// stay; older ones are removed). A failed build leaves `dist` as it was.
// A package holds no symbolic link: under `npm pack` and `npm publish` (whose `prepare` runs this)
// and with `--materialize`, the link is then replaced by a real copy of its build; the next build
// swaps the link back in.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';

const DIST = 'dist';
const BUILD_PREFIX = '.dist-';
/** Builds kept besides the current one, for the `loom` processes still running them. */
const KEPT_PREVIOUS_BUILDS = 2;

function run(args) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  return result.status === 0;
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function exists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes the builds that `dist` no longer names, but the newest KEPT_PREVIOUS_BUILDS. */
function pruneBuilds(current) {
  const builds = readdirSync('.')
    .filter((name) => name.startsWith(BUILD_PREFIX) && name !== current)
    .map((name) => ({ name, time: statSync(name).mtimeMs }))
    .sort((left, right) => right.time - left.time);
  for (const { name } of builds.slice(KEPT_PREVIOUS_BUILDS)) {
    rmSync(name, { recursive: true, force: true });
  }
}

function build() {
  const id = `${Date.now().toString(36)}-${process.pid}`;
  const folder = `${BUILD_PREFIX}${id}`;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built =
    run([tsc, '-p', 'tsconfig.build.json', '--outDir', folder]) &&
    run(['scripts/bundle.mjs', folder]);
  if (!built) {
    rmSync(folder, { recursive: true, force: true });
    process.exit(1);
  }
  // A `dist` folder from before (or from --materialize) moves aside once; from then on the
  // swap is the one rename below.
  if (exists(DIST) && !isLink(DIST)) renameSync(DIST, `${BUILD_PREFIX}old-${id}`);
  const link = `${DIST}.new-${process.pid}`;
  rmSync(link, { force: true });
  symlinkSync(folder, link);
  renameSync(link, DIST);
  pruneBuilds(folder);
}

function materialize() {
  if (!isLink(DIST)) return;
  const target = realpathSync(DIST);
  const copy = `${DIST}.copy-${process.pid}`;
  cpSync(target, copy, { recursive: true });
  unlinkSync(DIST);
  renameSync(copy, DIST);
}

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (!process.argv.includes('--materialize')) build();
if (packing || process.argv.includes('--materialize')) materialize();
