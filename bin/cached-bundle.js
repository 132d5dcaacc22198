/**
 * Runs the command line's CommonJS chunks (dist/bundle/cli.cjs and the `cli-chunk-*.cjs` it
 * requires) with V8's code cache: the functions a typical run compiled are read back from
 * `CHUNK.cache` instead of being parsed and compiled again at every start (Node 20 has no module
 * compile cache of its own). A chunk loads at its first `require`, so a command reads only the
 * chunks it uses. The caches are written by the build (scripts/bundle.mjs trains them on a
 * scripted run) and checked against the chunk's size and time; V8 itself refuses one made by
 * another V8 or with other flags (a chunk loaded after a workflow tuned V8 has its own cache).
 * A missing, stale or refused cache only costs time: the chunk compiles from source and a
 * fresh cache is written at exit (best effort, atomically, so concurrent starts never read
 * half a file). Must never change what a chunk does, and never fail a start because of a cache.
 */
const {
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

/** A cache file starts with this many bytes: the size and mtime of the chunk it was made from. */
const HEADER_BYTES = 16;

/** Chunks loaded so far, by absolute path: each runs once, like a module. */
const chunks = new Map();
/** Caches to write at exit: chunks that had none, a stale one, or one V8 refused. */
const unsaved = [];
let saveAtExit = false;

/** Loads `file`, a chunk (ASCII, as the build checks), and returns its exports. */
function loadCachedBundle(file) {
  const loaded = chunks.get(file);
  if (loaded) return loaded.exports;
  const { source, stamp } = readChunk(file);
  const cacheFile = `${file}${cacheVariant()}.cache`;
  const cached = readCache(cacheFile, stamp);
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname, loomImportModule) {${source}\n})`,
    { filename: file, cachedData: cached },
  );
  if (cached === undefined || script.cachedDataRejected || process.env.LOOM_WRITE_CODE_CACHE) {
    if (!saveAtExit) {
      saveAtExit = true;
      process.once('exit', saveCaches);
    }
    unsaved.push({ cacheFile, stamp, script });
  }
  const chunk = { exports: {} };
  chunks.set(file, chunk);
  const run = script.runInThisContext();
  run(chunk.exports, requireFrom(file), chunk, file, dirname(file), importModule);
  return chunk.exports;
}

/**
 * Code compiled with `vm.Script` has no `import()` of its own (Node 20 offers one only as an
 * experimental option that warns); the interactive terminal, an ES module, is imported here.
 */
const importModule = (specifier) => import(specifier);

/**
 * `.fan-out` once a workflow has tuned V8's compiler (src/workflow/compiler-tuning.ts): V8
 * refuses a cache made under other flags, so chunks loaded after that keep a cache of their own.
 * A cache is made under the flags of the moment, so the tuning first has the caches still to
 * write written (`loom.code-cache-save`), under the flags their chunks were compiled with.
 */
globalThis[Symbol.for('loom.code-cache-save')] = saveCaches;

function cacheVariant() {
  const variant = globalThis[Symbol.for('loom.code-cache-variant')];
  return typeof variant === 'string' ? `.${variant}` : '';
}

/** A chunk's `require`: its sibling chunks through this loader, everything else through Node. */
function requireFrom(file) {
  const nodeRequire = createRequire(file);
  const folder = dirname(file);
  const chunkRequire = (specifier) =>
    specifier.startsWith('./') && specifier.endsWith('.cjs')
      ? loadCachedBundle(join(folder, specifier))
      : nodeRequire(specifier);
  return Object.assign(chunkRequire, {
    resolve: nodeRequire.resolve,
    cache: nodeRequire.cache,
    main: nodeRequire.main,
  });
}

function readChunk(file) {
  const descriptor = openSync(file, 'r');
  try {
    const stats = fstatSync(descriptor);
    const stamp = Buffer.alloc(HEADER_BYTES);
    stamp.writeDoubleLE(stats.size, 0);
    stamp.writeDoubleLE(stats.mtimeMs, 8);
    // latin1 makes a one-byte string straight from the bytes; the build checks they are ASCII.
    return { source: readFileSync(descriptor, 'latin1'), stamp };
  } finally {
    closeSync(descriptor);
  }
}

function readCache(cacheFile, stamp) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, HEADER_BYTES).equals(stamp)) {
    return undefined;
  }
  return bytes.subarray(HEADER_BYTES);
}

function saveCaches() {
  for (const { cacheFile, stamp, script } of unsaved.splice(0)) {
    const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    try {
      writeFileSync(temporary, Buffer.concat([stamp, script.createCachedData()]));
      renameSync(temporary, cacheFile);
    } catch {
      // A read-only install keeps working without a cache.
    }
  }
}

module.exports = { loadCachedBundle };
