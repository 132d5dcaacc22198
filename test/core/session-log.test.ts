import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs, { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { FileCreationPace } from '../../src/core/file-creation-pace.js';
import { SESSION_FORMAT_VERSION, type SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { newSessionId, SessionLog } from '../../src/core/session-log.js';
import { afterQueuedImmediates } from '../helpers/event-loop.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const folderPrefix = 'loom-session-log-';

function fileLines(
  path: string,
): Array<{ type: string; seq: number; time: number; data: unknown }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

function chunk(text: string) {
  return { turnId: 't1', step: 1, kind: 'text' as const, text };
}

/** Runs `body` with stderr captured until what it wrote matches `until`. */
async function captureStderr(body: () => void, until: RegExp): Promise<string> {
  const original = process.stderr.write;
  let captured = '';
  let matched = () => {};
  const written = new Promise<void>((resolve) => {
    matched = resolve;
  });
  process.stderr.write = ((text: string | Uint8Array) => {
    captured += String(text);
    if (until.test(captured)) matched();
    return true;
  }) as typeof process.stderr.write;
  try {
    body();
    await written;
  } finally {
    process.stderr.write = original;
  }
  return captured;
}

describe('SessionLog.create', () => {
  test('writes the versioned header line synchronously', () => {
    const directory = join(temporaryFolder(folderPrefix), 'nested', 'sessions');
    const before = Date.now();
    const log = SessionLog.create({
      directory,
      sessionId: 'session-a',
      parentSession: 'parent-1',
      delegationDepth: 2,
      cwd: '/work',
    });
    assert.equal(log.path, join(directory, 'session-a.jsonl'));
    const [header, ...rest] = fileLines(log.path);
    assert.equal(rest.length, 0);
    assert.equal(header?.type, 'session/header');
    assert.equal(header?.seq, 0);
    assert.ok((header?.time ?? 0) >= before);
    assert.deepEqual(header?.data, {
      version: SESSION_FORMAT_VERSION,
      sessionId: 'session-a',
      created: new Date(header?.time ?? 0).toISOString(),
      parentSession: 'parent-1',
      seedLength: 0,
      delegationDepth: 2,
      cwd: '/work',
    });
    assert.deepEqual(log.header, header?.data);
    assert.equal(log.lastSeq, 0);
    log.close();
  });

  test('defaults: a fresh time-sortable id, no parent, depth 0, no cwd', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    assert.match(log.header.sessionId, /^\d{8}-\d{6}-[0-9a-z]{6}$/);
    assert.equal(log.header.parentSession, null);
    assert.equal(log.header.delegationDepth, 0);
    assert.equal('cwd' in log.header, false);
    log.close();
  });

  test('newSessionId puts the UTC date and time first', () => {
    const id = newSessionId(new Date('2026-11-30T00:15:00.000Z'));
    assert.match(id, /^20261130-001500-[0-9a-z]{6}$/);
    assert.notEqual(newSessionId(), newSessionId());
  });

  test('newSessionId gives each second its own date and time, in any order', () => {
    const times = [
      '2026-11-30T00:15:00.999Z',
      '2026-11-30T00:15:01.000Z',
      '2026-11-30T00:15:00.000Z',
      '2031-01-02T03:04:05.006Z',
      '2026-11-30T00:15:00.500Z',
    ];
    assert.deepEqual(
      times.map((time) => newSessionId(new Date(time)).slice(0, 15)),
      [
        '20261130-001500',
        '20261130-001501',
        '20261130-001500',
        '20310102-030405',
        '20261130-001500',
      ],
    );
    assert.throws(() => newSessionId(new Date(Number.NaN)), RangeError);
  });

  test('refuses an existing session file and an unsafe id', () => {
    const directory = temporaryFolder(folderPrefix);
    SessionLog.create({ directory, sessionId: 'twice' }).close();
    assert.throws(() => SessionLog.create({ directory, sessionId: 'twice' }), /already exists/);
    assert.throws(
      () => SessionLog.create({ directory, sessionId: '../escape' }),
      (error: LoomError) =>
        error.code === 'INVALID_ARGUMENT' && error.message.includes('../escape'),
    );
  });

  test('the file appears with its header and seed already complete, and leaves no temporary file', () => {
    const directory = temporaryFolder(folderPrefix);
    const path = join(directory, 'watched.jsonl');
    // Looks at the file after every file-system call of `create`: the first moment it exists is
    // where a kill would leave it.
    const watched = [
      'openSync',
      'writeSync',
      'writeFileSync',
      'closeSync',
      'linkSync',
      'renameSync',
      'rmSync',
      'unlinkSync',
    ] as const;
    const originals = watched.map((name) => [name, fs[name]] as const);
    let firstSight: string | undefined;
    const original = { existsSync: fs.existsSync, readFileSync: fs.readFileSync };
    for (const [name, call] of originals) {
      Object.assign(fs, {
        [name]: (...args: unknown[]) => {
          const result = (call as (...values: unknown[]) => unknown)(...args);
          if (firstSight === undefined && original.existsSync(path)) {
            firstSight = original.readFileSync(path, 'utf8');
          }
          return result;
        },
      });
    }
    syncBuiltinESMExports();
    let log: SessionLog;
    try {
      log = SessionLog.create({
        directory,
        sessionId: 'watched',
        seed: [{ type: 'turn/start', seq: 1, time: 1, data: { turnId: 'p1' } }],
      });
    } finally {
      for (const [name, call] of originals) Object.assign(fs, { [name]: call });
      syncBuiltinESMExports();
    }
    log.close();
    assert.equal(firstSight, readFileSync(path, 'utf8'));
    assert.deepEqual(
      fileLines(path).map((line) => line.type),
      ['session/header', 'turn/start'],
    );
    assert.deepEqual(readdirSync(directory).sort(), ['watched.jsonl']);
  });

  test('writes seed events re-numbered from 1 right after the header', () => {
    const seed: SessionEvent[] = [
      { type: 'turn/start', seq: 7, time: 100, data: { turnId: 'p1' } },
      {
        type: 'turn/end',
        seq: 12,
        time: 200,
        data: { turnId: 'p1', reason: 'completed', usage: { input: 1, output: 2 }, steps: 0 },
      },
    ];
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix), seed });
    assert.equal(log.header.seedLength, 2);
    assert.deepEqual(
      fileLines(log.path).map((line) => [line.type, line.seq, line.time]),
      [
        ['session/header', 0, fileLines(log.path)[0]?.time],
        ['turn/start', 1, 100],
        ['turn/end', 2, 200],
      ],
    );
    assert.equal(log.append('turn/start', { turnId: 'c1' }).seq, 3);
    assert.equal(seed[0]?.seq, 7);
    log.close();
  });
});

describe('SessionLog.append', () => {
  test('numbers events monotonically and keeps them in memory', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    const before = Date.now();
    const first = log.append('turn/start', { turnId: 't1' });
    const second = log.append('assistant/chunk', chunk('hi'));
    assert.deepEqual(
      log.events.map((event) => event.seq),
      [1, 2],
    );
    assert.equal(first.type, 'turn/start');
    assert.deepEqual(second.data, chunk('hi'));
    assert.ok(second.time >= first.time && first.time >= before);
    assert.equal(log.lastSeq, 2);
    log.close();
  });

  test('batches lines until the next tick, and flush() writes them at once', async () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    log.append('turn/start', { turnId: 't1' });
    log.append('assistant/chunk', chunk('a'));
    assert.equal(fileLines(log.path).length, 1);
    await afterQueuedImmediates();
    assert.deepEqual(
      fileLines(log.path).map((line) => line.seq),
      [0, 1, 2],
    );
    log.append('assistant/chunk', chunk('b'));
    assert.equal(fileLines(log.path).length, 3);
    log.flush();
    assert.equal(fileLines(log.path).length, 4);
    log.close();
  });

  test('writes at once when the pending lines pass the threshold', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix), flushThreshold: 10 });
    log.append('assistant/chunk', chunk('long enough to pass the threshold'));
    assert.equal(fileLines(log.path).length, 2);
    log.close();
    assert.throws(
      () => SessionLog.create({ directory: temporaryFolder(folderPrefix), flushThreshold: 0 }),
      /flushThreshold/,
    );
  });

  test('stores the JSON form of the data, equal to what a reload gives', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    const data = {
      turnId: 't1',
      step: 1,
      callId: 'c1',
      name: 'x',
      arguments: { when: new Date(0) },
    };
    const event = log.append('tool/call', data);
    data.name = 'changed later';
    assert.equal(event.data.name, 'x');
    assert.deepEqual(event.data.arguments, { when: '1970-01-01T00:00:00.000Z' });
    log.close();
    assert.deepEqual(loadSessionFile(log.path).events, log.events);
  });

  test('refuses data that has no JSON form, and numbers nothing for it', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    const appendPlugin = log.append.bind(log) as (type: string, data: unknown) => SessionEvent;
    assert.throws(() => appendPlugin('plugin/empty', undefined), /plugin\/empty has no JSON data/);
    assert.throws(() => appendPlugin('plugin/big', { size: 1n }), TypeError);
    assert.equal(log.lastSeq, 0);
    log.close();
  });

  test('round-trips plugin event types', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    // A plugin augments SessionEventMap; the test avoids augmenting the shared map and casts.
    const appendPlugin = log.append.bind(log) as (type: string, data: unknown) => SessionEvent;
    appendPlugin('workflow/phase', { runId: 'r1', title: 'audit' });
    log.close();
    const reopened = SessionLog.open(log.path);
    assert.deepEqual(reopened.events[0], log.events[0]);
    assert.equal(reopened.events[0]?.type, 'workflow/phase');
    assert.throws(() => SessionLog.open(log.path), /already open in this process/);
    reopened.close();
  });

  test('append after close throws a LoomError; close twice is harmless', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    log.close();
    log.close();
    assert.equal(log.closed, true);
    assert.throws(
      () => log.append('turn/start', { turnId: 't1' }),
      (error: unknown) => error instanceof LoomError && error.message.includes('closed'),
    );
  });
});

describe('SessionLog.onAppend', () => {
  test('notifies observers synchronously, in order, until disposed', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    const seen: string[] = [];
    const dispose = log.onAppend((event) => seen.push(`a${event.seq}`));
    log.onAppend((event) => seen.push(`b${event.seq}`));
    log.append('turn/start', { turnId: 't1' });
    assert.deepEqual(seen, ['a1', 'b1']);
    dispose();
    log.append('turn/end', {
      turnId: 't1',
      reason: 'completed',
      usage: { input: 0, output: 0 },
      steps: 0,
    });
    assert.deepEqual(seen, ['a1', 'b1', 'b2']);
    log.close();
  });

  test('a throwing observer is reported and breaks neither append nor other observers', async () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    const seen: number[] = [];
    log.onAppend(() => {
      throw new Error('observer broke');
    });
    log.onAppend(async () => {
      throw new Error('async observer broke');
    });
    log.onAppend((event) => seen.push(event.seq));
    const stderr = await captureStderr(
      () => log.append('turn/start', { turnId: 't1' }),
      /async observer broke/,
    );
    assert.deepEqual(seen, [1]);
    assert.match(stderr, /observer broke/);
    assert.match(stderr, /async observer broke/);
    log.close();
    assert.equal(loadSessionFile(log.path).events.length, 1);
  });

  test('an observer that appends keeps the file in seq order', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    log.onAppend((event) => {
      if (event.type === 'turn/start') log.append('assistant/chunk', chunk('reaction'));
    });
    log.append('turn/start', { turnId: 't1' });
    log.close();
    assert.deepEqual(
      loadSessionFile(log.path).events.map((event) => [event.seq, event.type]),
      [
        [1, 'turn/start'],
        [2, 'assistant/chunk'],
      ],
    );
  });
});

describe('SessionLog durability', () => {
  test('flushed events survive SIGKILL; unflushed ones are simply absent', async () => {
    const folder = temporaryFolder(folderPrefix);
    const moduleUrl = new URL('../../src/core/session-log.ts', import.meta.url).href;
    const script = join(folder, 'crash.mjs');
    writeFileSync(
      script,
      [
        `import { writeSync } from 'node:fs';`,
        `const { SessionLog } = await import(${JSON.stringify(moduleUrl)});`,
        `const log = SessionLog.create({ directory: ${JSON.stringify(folder)}, sessionId: 'crash' });`,
        `log.append('turn/start', { turnId: 't1' });`,
        `for (let index = 0; index < 100; index++) {`,
        `  log.append('assistant/chunk', { turnId: 't1', step: 1, kind: 'text', text: 'chunk ' + index });`,
        `}`,
        `log.flush();`,
        `log.append('assistant/chunk', { turnId: 't1', step: 1, kind: 'text', text: 'never flushed' });`,
        `writeSync(1, 'ready\\n');`,
        `const deadline = Date.now() + 30000;`,
        `while (Date.now() < deadline) {}`,
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    while (!output.includes('ready')) {
      const [data] = (await once(child.stdout, 'data')) as [string];
      output += data;
    }
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    assert.equal(signal, 'SIGKILL');

    const loaded = loadSessionFile(join(folder, 'crash.jsonl'));
    assert.equal(loaded.tornTail, false);
    assert.equal(loaded.events.length, 101);
    assert.deepEqual(
      loaded.events.map((event) => event.seq),
      Array.from({ length: 101 }, (_, index) => index + 1),
    );
    assert.deepEqual(loaded.events.at(-1)?.data, chunk('chunk 99'));
  });
});

describe('SessionLog with a deferred file', () => {
  /** Temporary files left anywhere under `folder` (the background lanes' folders included). */
  const leftovers = (folder: string) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.tmp'),
    );
  /** A pace that has just seen two slow files: the next files are made in the background. */
  const slowDisk = () => {
    const pace = new FileCreationPace();
    pace.record(Number.POSITIVE_INFINITY);
    pace.record(Number.POSITIVE_INFINITY);
    return pace;
  };
  /** A pace whose clock never moves: every file is quick, so each is made on the thread. */
  const quickDisk = () => new FileCreationPace({ now: () => 0 });

  test('written() makes the file on the thread while files are quick: it exists before the promise settles', async () => {
    const folder = temporaryFolder(folderPrefix);
    const log = SessionLog.create({
      directory: folder,
      sessionId: 'quick',
      deferFile: true,
      filePace: quickDisk(),
    });
    log.append('turn/start', { turnId: 't1' });
    assert.equal(fs.existsSync(log.path), false);
    const written = log.written();
    assert.deepEqual(
      fileLines(log.path).map((line) => line.type),
      ['session/header', 'turn/start'],
    );
    await written;
    log.close();
    assert.deepEqual(leftovers(folder), [], 'no background lane was used');
  });

  test('after two slow files in a row the next files are made off the thread, then on it again once the stretch is over', async () => {
    const folder = temporaryFolder(folderPrefix);
    let clock = 0;
    let creationMs = 0;
    // Each reading of the clock inside a creation moves it on by `creationMs` (start, then end).
    const pace = new FileCreationPace({
      now: () => {
        clock += creationMs / 2;
        return clock;
      },
      slowMs: 1,
      backgroundStretch: 2,
    });
    const make = async (sessionId: string) => {
      const log = SessionLog.create({
        directory: folder,
        sessionId,
        deferFile: true,
        filePace: pace,
      });
      log.append('turn/start', { turnId: sessionId });
      const written = log.written();
      const onThread = fs.existsSync(log.path);
      await written;
      log.close();
      return onThread;
    };
    assert.equal(await make('quick-1'), true);
    creationMs = 4;
    assert.equal(await make('slow-alone'), true, 'a file is timed as it is made on the thread');
    creationMs = 0;
    assert.equal(
      await make('quick-2'),
      true,
      'one slow file (a garbage collection, say) is not a slow disk',
    );
    creationMs = 4;
    assert.equal(await make('slow-1'), true);
    assert.equal(await make('slow-2'), true);
    creationMs = 0;
    assert.equal(await make('stretch-1'), false);
    assert.equal(await make('stretch-2'), false);
    assert.equal(await make('quick-3'), true);
    const made = ['quick-1', 'slow-alone', 'quick-2', 'slow-1', 'slow-2', 'stretch-1', 'stretch-2'];
    for (const sessionId of [...made, 'quick-3']) {
      assert.deepEqual(fileLines(join(folder, `${sessionId}.jsonl`))[1]?.data, {
        turnId: sessionId,
      });
    }
    assert.deepEqual(leftovers(folder), []);
  });

  test('written() on a slow disk makes the file off the thread: absent until it resolves, then complete', async () => {
    const folder = temporaryFolder(folderPrefix);
    const log = SessionLog.create({
      directory: folder,
      sessionId: 'later',
      deferFile: true,
      filePace: slowDisk(),
    });
    log.append('turn/start', { turnId: 't1' });
    assert.equal(fs.existsSync(log.path), false);
    const written = log.written();
    // Making it takes the thread pool; nothing of it can finish before this thread yields.
    assert.equal(fs.existsSync(log.path), false);
    log.append('assistant/chunk', chunk('while it is made'));
    await written;
    assert.deepEqual(
      fileLines(log.path).map((line) => line.type),
      ['session/header', 'turn/start', 'assistant/chunk'],
    );
    log.append('assistant/chunk', chunk('after'));
    log.flush();
    assert.equal(fileLines(log.path).length, 4);
    log.close();
    assert.deepEqual(leftovers(folder), []);
  });

  test('a deferred file appears holding every event appended until it was made, in one write', async () => {
    const folder = temporaryFolder(folderPrefix);
    const path = join(folder, 'whole.jsonl');
    const log = SessionLog.create({
      directory: folder,
      sessionId: 'whole',
      deferFile: true,
      filePace: slowDisk(),
    });
    // Looks at the file before and after every file-system call: the first moment it exists is
    // what a kill would leave.
    const watched = [
      'openSync',
      'write',
      'writeSync',
      'closeSync',
      'linkSync',
      'unlinkSync',
    ] as const;
    const originals = watched.map((name) => [name, fs[name]] as const);
    const original = { existsSync: fs.existsSync, readFileSync: fs.readFileSync };
    let firstSight: string | undefined;
    let writes = 0;
    const look = () => {
      if (firstSight === undefined && original.existsSync(path)) {
        firstSight = original.readFileSync(path, 'utf8');
      }
    };
    for (const [name, call] of originals) {
      Object.assign(fs, {
        [name]: (...args: unknown[]) => {
          // Writes to the session's descriptor, not the test runner's to stdout or stderr.
          if ((name === 'write' || name === 'writeSync') && Number(args[0]) > 2) writes += 1;
          look();
          const result = (call as (...values: unknown[]) => unknown)(...args);
          look();
          return result;
        },
      });
    }
    syncBuiltinESMExports();
    try {
      log.append('turn/start', { turnId: 't1' });
      const written = log.written();
      log.append('assistant/chunk', chunk('while it is made'));
      await written;
    } finally {
      for (const [name, call] of originals) Object.assign(fs, { [name]: call });
      syncBuiltinESMExports();
    }
    assert.equal(firstSight, readFileSync(path, 'utf8'));
    assert.deepEqual(
      fileLines(path).map((line) => line.type),
      ['session/header', 'turn/start', 'assistant/chunk'],
    );
    assert.equal(writes, 1);
    log.close();
    assert.deepEqual(leftovers(folder), []);
  });

  test('a flush while the background creation runs makes the file once, holding every event', async () => {
    const folder = temporaryFolder(folderPrefix);
    const log = SessionLog.create({ directory: folder, deferFile: true, filePace: slowDisk() });
    log.append('turn/start', { turnId: 't1' });
    const written = log.written();
    log.append('assistant/chunk', chunk('flushed on the thread'));
    log.flush();
    assert.equal(fileLines(log.path).length, 3);
    await written;
    log.append('assistant/chunk', chunk('after both'));
    log.close();
    const loaded = loadSessionFile(log.path);
    assert.deepEqual(
      loaded.events.map((event) => event.seq),
      [1, 2, 3],
    );
    assert.deepEqual(leftovers(folder), []);
  });

  test('many files made at once, more than there are lanes, each end up complete', async () => {
    const folder = temporaryFolder(folderPrefix);
    const filePace = slowDisk();
    const logs = Array.from({ length: 10 }, (_, index) => {
      const log = SessionLog.create({
        directory: folder,
        sessionId: `many-${index}`,
        deferFile: true,
        filePace,
      });
      log.append('turn/start', { turnId: `t${index}` });
      return log;
    });
    await Promise.all(logs.map((log) => log.written()));
    for (const [index, log] of logs.entries()) {
      assert.deepEqual(fileLines(log.path)[1]?.data, { turnId: `t${index}` });
      log.close();
    }
    assert.deepEqual(leftovers(folder), []);
  });

  test('close() makes a file that was never written', () => {
    const folder = temporaryFolder(folderPrefix);
    const closed = SessionLog.create({ directory: folder, deferFile: true });
    closed.append('turn/start', { turnId: 't1' });
    closed.close();
    assert.equal(closed.closed, true);
    assert.equal(fileLines(closed.path).length, 2);
    assert.deepEqual(leftovers(folder), []);
  });

  test('a process that exits before the file was made still leaves it, complete', async () => {
    const folder = temporaryFolder(folderPrefix);
    const moduleUrl = new URL('../../src/core/session-log.ts', import.meta.url).href;
    const paceUrl = new URL('../../src/core/file-creation-pace.ts', import.meta.url).href;
    const script = join(folder, 'exit.mjs');
    writeFileSync(
      script,
      [
        `const { SessionLog } = await import(${JSON.stringify(moduleUrl)});`,
        `const { FileCreationPace } = await import(${JSON.stringify(paceUrl)});`,
        // A slow disk: the file is still being made off the thread when the process exits.
        'const filePace = new FileCreationPace();',
        'filePace.record(Number.POSITIVE_INFINITY);',
        'filePace.record(Number.POSITIVE_INFINITY);',
        `const log = SessionLog.create({ directory: ${JSON.stringify(folder)}, sessionId: 'exits', deferFile: true, filePace });`,
        `log.append('turn/start', { turnId: 't1' });`,
        `void log.written();`,
        `process.exit(0);`,
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    const loaded = loadSessionFile(join(folder, 'exits.jsonl'));
    assert.deepEqual(
      loaded.events.map((event) => event.type),
      ['turn/start'],
    );
  });
});
