/**
 * Items 1 and 2 of issue 9 through real `bin/loom` processes: output piped into a reader that is
 * not reading yet still arrives whole once it reads (the process waits for its stdout to drain
 * before exiting), and a reader that goes away (`| head -1`) ends the command quietly with 141.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { waitUntil } from '../helpers/process-state.js';
import { sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { LOOM_BIN, startLoom, writeScriptedModel } from './loom-process.js';
import { parseResult, startScriptedWorkflow } from './workflow-fixture.js';

/** The files `pid` holds open; none once it has exited. Fails where there is no /proc. */
function openFiles(pid: number): string[] {
  assert.ok(existsSync('/proc/self/fd'), 'these checks need /proc');
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

test('loom run --json into a reader that reads only at the end: every event arrives, as logged', async () => {
  const home = temporaryFolder();
  // Far more output than a pipe or socket buffer holds: the process ends with bytes still queued.
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'x'.repeat(600_000) } });
  const run = startLoom(['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'go'], {
    home,
  });
  run.child.stdout.pause();
  const pid = run.child.pid ?? assert.fail('no pid');
  await waitUntil(() => {
    const [file] = sessionPaths(home);
    if (!file || !readFileSync(file, 'utf8').includes('"type":"turn/end"')) return false;
    return !openFiles(pid).includes(file);
  }, 'loom run to finish its turn and close its session log');
  run.child.stdout.resume();
  const { code } = await run.exited;
  assert.equal(code, 0, run.stderr());

  const [file] = sessionPaths(home);
  assert.ok(file);
  const { header, events } = loadSessionFile(file);
  const expected = events
    .map(
      (event) =>
        `${JSON.stringify({ sessionId: header.sessionId, type: event.type, seq: event.seq, time: event.time, data: event.data })}\n`,
    )
    .join('');
  assert.equal(Buffer.byteLength(run.stdout()), Buffer.byteLength(expected));
  assert.equal(run.stdout(), expected);
  assert.equal(events.at(-1)?.type, 'turn/end');
});

test('workflow run --json into a reader that reads only at the end: the whole result arrives', async () => {
  const { loom, eventsPath } = startScriptedWorkflow(
    temporaryFolder(),
    {
      name: 'big.js',
      script: `export const meta = { name: 'big', description: 'Returns a large value' };
return 'y'.repeat(300000);
`,
      model: { rules: [], default: { reply: 'ok' } },
    },
    ['--json'],
  );
  loom.child.stdout.pause();
  const pid = loom.child.pid ?? assert.fail('no pid');
  await waitUntil(
    () =>
      existsSync(eventsPath) &&
      readFileSync(eventsPath, 'utf8').includes('"type":"workflow/end"') &&
      !openFiles(pid).includes(eventsPath),
    'the workflow to end and its events file to be closed',
  );
  loom.child.stdout.resume();
  const run = await loom.exited;
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.value, 'y'.repeat(300000));
});

test('sessions show --json: a slow reader gets every event line', async () => {
  const home = temporaryFolder();
  const log = new SessionStore(home).create();
  for (let index = 0; index < 300; index += 1) {
    log.append('user/message', {
      text: `message ${index} ${'z'.repeat(1000)}`,
      delivery: 'followup',
      turnId: 't1',
    });
  }
  const id = log.header.sessionId;
  const path = log.path;
  log.close();
  const show = startLoom(['sessions', 'show', '--json', id], { home });
  // Reads one chunk per turn of the event loop, so the writer keeps finding the pipe full.
  show.child.stdout.on('data', () => {
    show.child.stdout.pause();
    setImmediate(() => show.child.stdout.resume());
  });
  const { code } = await show.exited;
  assert.equal(code, 0, show.stderr());
  const lines = show.stdout().split('\n').filter(Boolean);
  assert.equal(lines.length, loadSessionFile(path).events.length);
  assert.equal(JSON.parse(lines.at(-1) ?? '{}').seq, 300);
});

/** Runs `loom ARGS | head -1` in bash; the status is loom's own, stderr is loom's alone. */
function pipeIntoHead(
  args: string[],
  home: string,
): Promise<{ status: number; firstLine: string; stderr: string }> {
  const quoted = [process.execPath, LOOM_BIN, ...args].map((word) => `'${word}'`).join(' ');
  const errorPath = join(home, `stderr-${Math.random().toString(36).slice(2)}.txt`);
  const script = `${quoted} 2>'${errorPath}' | head -1; echo "status \${PIPESTATUS[0]}"`;
  const child = spawn('bash', ['-c', script], { env: { ...process.env, LOOM_HOME: home } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return new Promise((resolve) =>
    child.on('close', () => {
      const lines = out.trim().split('\n');
      const status = Number(/^status (\d+)$/.exec(lines.at(-1) ?? '')?.[1] ?? Number.NaN);
      resolve({ status, firstLine: lines[0] ?? '', stderr: readFileSync(errorPath, 'utf8') });
    }),
  );
}

test('sessions list | head -1 and sessions show | head -1 end quietly with 141, no stack trace', async () => {
  const home = temporaryFolder();
  const store = new SessionStore(home);
  let big = '';
  // Enough sessions with long prompts (and one long session) that every output is several times
  // what a pipe (64 KiB) and head's first read hold together, so loom must meet the closed pipe.
  const longPrompt = 'p'.repeat(400);
  for (let index = 0; index < 1000; index += 1) {
    const log = store.create();
    log.append('user/message', {
      text: `prompt ${index} ${longPrompt}`,
      delivery: 'followup',
      turnId: 't1',
    });
    if (index === 0) {
      for (let line = 0; line < 2000; line += 1)
        log.append('user/message', {
          text: `line ${line} ${'q'.repeat(1000)}`,
          delivery: 'followup',
          turnId: 't1',
        });
      big = log.header.sessionId;
    }
    log.close();
  }
  for (const args of [
    ['sessions', 'list', '--all'],
    ['sessions', 'list', '--json', '--all'],
    ['sessions', 'show', big],
    ['sessions', 'show', '--json', big],
  ]) {
    const piped = await pipeIntoHead(args, home);
    assert.equal(piped.stderr, '', `${args.join(' ')} wrote to stderr`);
    assert.equal(piped.status, 141, args.join(' '));
    assert.ok(piped.firstLine.length > 0, args.join(' '));
  }
});

test('loom run --json | head -1 ends quietly and leaves a session that loads', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'x'.repeat(200_000) } });
  const piped = await pipeIntoHead(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'talk'],
    home,
  );
  assert.equal(piped.stderr, '');
  assert.equal(piped.status, 141);
  assert.equal(JSON.parse(piped.firstLine).type, 'turn/start');
  const [file] = sessionPaths(home);
  assert.ok(file);
  const { events } = loadSessionFile(file);
  assert.equal(events.at(-1)?.type, 'turn/end');
  assert.deepEqual(checkSessionInvariants(events), []);
});
