/**
 * bin/cached-bundle.js (issue 14): the command line's chunks run with V8's code cache. A chunk
 * loads at its first `require`, once; a missing, stale (the chunk changed) or refused cache is
 * rewritten at exit and never changes what runs; an accepted one is left alone. The build's
 * trained caches are accepted by this Node. Timing is the bench's business (bench/cli.bench.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom } from './loom-process.js';

const loader = resolve('bin/cached-bundle.js');

/** Runs `main.cjs` of `folder` through the loader in a fresh process; returns its stdout. */
function runChunks(folder: string): string {
  const run = spawnSync(
    process.execPath,
    [
      '-e',
      `const { loadCachedBundle } = require(${JSON.stringify(loader)}); loadCachedBundle(${JSON.stringify(join(folder, 'main.cjs'))}).main();`,
    ],
    { encoding: 'utf8', env: { ...process.env, LOOM_WRITE_CODE_CACHE: '' } },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

function writeChunks(folder: string, greeting: string): void {
  writeFileSync(
    join(folder, 'main.cjs'),
    "const { greet } = require('./chunk-a.cjs');\n" +
      "exports.main = () => { require('./chunk-a.cjs').count(); console.log(greet(), require('./chunk-a.cjs').loads()); };\n",
  );
  writeFileSync(
    join(folder, 'chunk-a.cjs'),
    `globalThis.loads = (globalThis.loads ?? 0) + 1;\nexports.greet = () => ${JSON.stringify(greeting)};\nexports.count = () => {};\nexports.loads = () => globalThis.loads;\n`,
  );
}

const inode = (file: string) => statSync(file).ino;

test('chunks load once; a missing cache is written at exit and an accepted one is left alone', () => {
  const folder = temporaryFolder('loom-code-cache-');
  writeChunks(folder, 'hello');
  assert.equal(runChunks(folder), 'hello 1\n');
  const written = {
    main: inode(join(folder, 'main.cjs.cache')),
    chunk: inode(join(folder, 'chunk-a.cjs.cache')),
  };
  assert.equal(runChunks(folder), 'hello 1\n');
  assert.equal(inode(join(folder, 'main.cjs.cache')), written.main, 'an accepted cache is kept');
  assert.equal(inode(join(folder, 'chunk-a.cjs.cache')), written.chunk);
});

test('a cache made from another version of the chunk is not used, and is replaced', () => {
  const folder = temporaryFolder('loom-code-cache-');
  writeChunks(folder, 'hello');
  runChunks(folder);
  const before = inode(join(folder, 'chunk-a.cjs.cache'));
  // Same length, other text: V8's own check (the source's length) would take the old cache.
  writeChunks(folder, 'howdy');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(folder, 'chunk-a.cjs'), later, later);
  assert.equal(runChunks(folder), 'howdy 1\n');
  assert.notEqual(inode(join(folder, 'chunk-a.cjs.cache')), before, 'the stale cache was replaced');
  assert.equal(runChunks(folder), 'howdy 1\n');
});

test('a cache V8 refuses costs only time: the chunk runs from source and the cache is rewritten', () => {
  const folder = temporaryFolder('loom-code-cache-');
  writeChunks(folder, 'hello');
  runChunks(folder);
  const cacheFile = join(folder, 'chunk-a.cjs.cache');
  const bytes = readFileSync(cacheFile);
  bytes.fill(7, 16);
  writeFileSync(cacheFile, bytes);
  const broken = inode(cacheFile);
  assert.equal(runChunks(folder), 'hello 1\n');
  assert.notEqual(inode(cacheFile), broken);
  assert.notDeepEqual(readFileSync(cacheFile), bytes);
});

test("the build's trained caches are accepted: loom --version rewrites none", async () => {
  const cacheFile = resolve('dist/bundle/cli.cjs.cache');
  const before = inode(cacheFile);
  const run = startLoom(['--version'], { home: temporaryFolder() });
  assert.equal((await run.exited).code, 0, run.stderr());
  assert.match(run.stdout(), /^\d+\.\d+\.\d+\n$/);
  assert.equal(inode(cacheFile), before);
});

test('a chunk loaded after a workflow tuned V8 keeps a cache of its own; no run rewrites another', () => {
  const folder = temporaryFolder('loom-code-cache-');
  const tuning = pathToFileURL(resolve('dist/workflow/compiler-tuning.js')).href;
  writeFileSync(
    join(folder, 'main.cjs'),
    "require('./chunk-a.cjs');\n" +
      'exports.main = async () => {\n' +
      `  if (process.env.TUNE) (await loomImportModule(${JSON.stringify(tuning)})).tuneCompilerForFanOut([]);\n` +
      "  console.log(require('./chunk-b.cjs').late());\n" +
      '};\n',
  );
  writeFileSync(join(folder, 'chunk-a.cjs'), 'exports.early = () => 1;\n');
  writeFileSync(join(folder, 'chunk-b.cjs'), "exports.late = () => 'late';\n");
  const run = (tune: boolean) => {
    const result = spawnSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(loader)}).loadCachedBundle(${JSON.stringify(join(folder, 'main.cjs'))}).main();`,
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, LOOM_WRITE_CODE_CACHE: '', TUNE: tune ? '1' : '' },
      },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'late\n');
  };
  const caches = ['main.cjs.cache', 'chunk-a.cjs.cache', 'chunk-b.cjs.fan-out.cache'];
  run(true);
  const first = caches.map((name) => inode(join(folder, name)));
  assert.throws(() => statSync(join(folder, 'chunk-b.cjs.cache')), /ENOENT/);
  // Had the first run written main's and chunk-a's caches under the tuned flags, V8 would
  // refuse them now and they would be rewritten.
  run(true);
  assert.deepEqual(
    caches.map((name) => inode(join(folder, name))),
    first,
  );
  run(false);
  assert.deepEqual(
    caches.map((name) => inode(join(folder, name))),
    first,
    'a run that never tunes leaves the tuned cache alone',
  );
  const plain = inode(join(folder, 'chunk-b.cjs.cache'));
  run(false);
  assert.equal(inode(join(folder, 'chunk-b.cjs.cache')), plain);
});
