/**
 * Rebuilding under a running `loom` (issue 30, item 19): `npm run build` swaps the new build in
 * with one rename of the `dist` link, so a build that fails half-way (or is half-way) is never
 * seen, and a `loom` that started before keeps loading its own build. Slow (two whole builds),
 * so it is one test, in a copy of the repository: the real `dist` that the other tests run is
 * never rebuilt under them. The copy starts from a copy of that `dist`'s build (the build of these
 * same sources, made by the same script before the tests), linked as `npm run build` links one,
 * instead of building a third time just to have a build to replace.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom, writeScriptedModel } from './loom-process.js';

const SOURCES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'bin'];

/** The sources, and the current build as its `.dist-ID/` folder with `dist` linked to it. */
function copyRepository(): string {
  const copy = temporaryFolder('loom-rebuild-');
  for (const entry of SOURCES) cpSync(resolve(entry), join(copy, entry), { recursive: true });
  symlinkSync(resolve('node_modules'), join(copy, 'node_modules'));
  cpSync(realpathSync('dist'), join(copy, '.dist-first'), { recursive: true });
  symlinkSync('.dist-first', join(copy, 'dist'));
  return copy;
}

function build(folder: string): Promise<number | null> {
  const child = spawn('npm', ['run', 'build'], { cwd: folder, stdio: 'ignore' });
  return new Promise((resolveExit) => child.on('close', (code) => resolveExit(code)));
}

test('a rebuild swaps dist in one rename: a loom started before keeps working, a new one runs the new build', async () => {
  const repository = copyRepository();
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const fifo = join(workspace, 'go.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  // The bash call waits through three whole builds (the longest timeout bash takes).
  writeFileSync(join(home, 'config.yaml'), 'tools:\n  bashTimeoutMs: 600000\n');
  const workflow = {
    name: 'workflow',
    arguments: {
      meta: { name: 'late', description: 'started after the rebuild' },
      script: "return await agent('hello');",
    },
  };
  // Waits (blocked on the FIFO) through the rebuild, then starts a workflow: chunks and the
  // workflow thread load only then.
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply('^go$', [bashCall('cat go.fifo'), workflow], 'finished: {{lastToolResult}}'),
    ],
    default: { reply: 'child says hi' },
  });
  const loom = join(repository, 'bin', 'loom');
  const running = startLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'go'],
    { home, bin: loom },
  );
  await running.waitForLine(/"type":"tool\/call".*"name":"bash"/);
  const before = realpathSync(join(repository, 'dist'));
  const scripted = ['run', '--model', `scripted:${model}`, '--cwd', workspace, 'anything'];
  const newLoom = async () => {
    const fresh = startLoom(scripted, { home, bin: loom });
    const { code } = await fresh.exited;
    return { code, stdout: fresh.stdout(), stderr: fresh.stderr() };
  };
  // A build that fails at its last step (the trained run of the new command line) is never seen:
  // what a start finds mid-build is what it finds after a failed one.
  const main = join(repository, 'src', 'cli', 'main.ts');
  const source = readFileSync(main, 'utf8');
  writeFileSync(
    main,
    source.replace(
      '  guardStandardOutput();',
      "  if (process.argv.length > 0) throw new Error('a broken build');\n  guardStandardOutput();",
    ),
  );
  assert.notEqual(await build(repository), 0, 'the broken build fails');
  assert.equal(realpathSync(join(repository, 'dist')), before, 'a failed build changes nothing');
  const meanwhile = await newLoom();
  assert.equal(meanwhile.code, 0, meanwhile.stderr);
  assert.equal(meanwhile.stdout, 'child says hi\n');
  // A change, so the new build's chunks differ from the running one's.
  writeFileSync(main, source.replace('over ACP on stdio', 'over ACP on standard input'));
  assert.equal(await build(repository), 0, 'the rebuild');
  const after = realpathSync(join(repository, 'dist'));
  assert.notEqual(after, before, 'dist names the new build');
  assert.ok(existsSync(before), "the running loom's build is kept");

  // Without O_NONBLOCK a write with no reader left (the bash call ended) would block the test
  // forever; this way it fails at once, naming ENXIO.
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  writeSync(writer, 'go\n');
  closeSync(writer);
  const { code } = await running.exited;
  assert.equal(code, 0, running.stderr());
  assert.match(running.stdout(), /finished: .*child says hi/);

  const fresh = await newLoom();
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(fresh.stdout, 'child says hi\n');
});
