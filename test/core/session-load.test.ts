import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import {
  INTERRUPTED_CALL_TEXT,
  isHeaderless,
  loadSessionFile,
  repairEvents,
} from '../../src/core/session-load.js';
import { SessionLog } from '../../src/core/session-log.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const folderPrefix = 'loom-session-load-';

const headerLine = JSON.stringify({
  type: 'session/header',
  seq: 0,
  time: 1,
  data: {
    version: 1,
    sessionId: 's',
    created: '2026-01-01T00:00:00.000Z',
    parentSession: null,
    seedLength: 0,
    delegationDepth: 0,
  },
});

function eventLine(seq: number, turnId = 't1'): string {
  return JSON.stringify({ type: 'turn/start', seq, time: 2, data: { turnId } });
}

function writeSession(text: string, name = 'session'): string {
  const path = join(temporaryFolder(folderPrefix), `${name}.jsonl`);
  writeFileSync(path, text);
  return path;
}

function corruptAt(path: string, line: number) {
  return (error: unknown) =>
    error instanceof LoomError &&
    error.code === 'SESSION_CORRUPT' &&
    error.message.includes(path) &&
    error.message.includes(`line ${line}`);
}

const usage = (input: number, output: number) => ({ input, output });

/**
 * A new session log in turn t1, step 1, whose assistant message (usage 10 in, 5 out) asks for
 * the tool calls `calls` (`[id, name]`, no arguments); nothing after it is logged yet.
 */
function logAskingFor(calls: Array<[id: string, name: string]>): SessionLog {
  const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
  log.append('turn/start', { turnId: 't1' });
  log.append('user/message', { text: 'hi', delivery: 'followup', turnId: 't1' });
  log.append('step/start', { turnId: 't1', step: 1 });
  log.append('assistant/message', {
    turnId: 't1',
    step: 1,
    text: '',
    toolCalls: calls.map(([id, name]) => ({ id, name, arguments: {} })),
    finishReason: 'tool-calls',
    usage: usage(10, 5),
    model: 'scripted:x',
    attempts: 1,
  });
  return log;
}

describe('loadSessionFile', () => {
  test('a missing file is SESSION_NOT_FOUND naming the path', () => {
    const path = join(temporaryFolder(folderPrefix), 'absent.jsonl');
    assert.throws(
      () => loadSessionFile(path),
      (error: unknown) =>
        error instanceof LoomError &&
        error.code === 'SESSION_NOT_FOUND' &&
        error.message.includes(path),
    );
  });

  test('a session path that is a folder is refused naming the path', () => {
    const path = join(temporaryFolder(folderPrefix), 'folder.jsonl');
    mkdirSync(path);
    assert.throws(
      () => loadSessionFile(path),
      (error: unknown) =>
        error instanceof LoomError &&
        error.code === 'SESSION_CORRUPT' &&
        error.message === `session file ${path} is a directory, not a file`,
    );
  });

  test('loads the header and the events in order', () => {
    const path = writeSession(`${headerLine}\n${eventLine(1)}\n${eventLine(3, 't2')}\n`);
    const loaded = loadSessionFile(path);
    assert.equal(loaded.header.sessionId, 's');
    assert.deepEqual(
      loaded.events.map((event) => event.seq),
      [1, 3],
    );
    assert.equal(loaded.tornTail, false);
  });

  test('a bad first line is SESSION_CORRUPT at line 1', () => {
    const badHeaders = [
      'not json\n',
      'not json',
      `${eventLine(0)}\n`,
      `${headerLine.replace('"version":1', '"version":99')}\n`,
      `${headerLine.replace('"seedLength":0', '"seedLength":-1')}\n`,
      `{"type":"turn/start","seq":0,"ti`,
    ];
    for (const text of badHeaders) {
      const path = writeSession(text);
      assert.throws(() => loadSessionFile(path), corruptAt(path, 1), text);
    }
    const unsupported = writeSession(`${headerLine.replace('"version":1', '"version":99')}\n`);
    assert.throws(() => loadSessionFile(unsupported), /unsupported format version 99/);
  });

  test('a file cut off before its header was complete names the file and the way out', () => {
    for (const text of ['', '{"type":"sess', headerLine.slice(0, 60)]) {
      const path = writeSession(text);
      assert.throws(
        () => loadSessionFile(path),
        (error: unknown) =>
          error instanceof LoomError &&
          error.code === 'SESSION_CORRUPT' &&
          error.message.includes(path) &&
          error.message.includes('no complete header') &&
          error.message.includes('loom run --session session'),
        JSON.stringify(text),
      );
      assert.equal(isHeaderless(path), true);
    }
    assert.equal(isHeaderless(writeSession('not a session')), false);
    assert.equal(isHeaderless(writeSession(headerLine)), false);
  });

  test('tolerates a torn last line and reports it', () => {
    const path = writeSession(`${headerLine}\n${eventLine(1)}\n{"type":"assistant/chu`);
    const loaded = loadSessionFile(path);
    assert.equal(loaded.tornTail, true);
    assert.equal(loaded.events.length, 1);
    assert.equal(loaded.intactBytes, Buffer.byteLength(`${headerLine}\n${eventLine(1)}\n`));
  });

  test('an unparsable line elsewhere is SESSION_CORRUPT naming its line', () => {
    const middle = writeSession(`${headerLine}\n${eventLine(1)}\n{broken\n${eventLine(2)}\n`);
    assert.throws(() => loadSessionFile(middle), corruptAt(middle, 3));
    const terminatedLast = writeSession(`${headerLine}\n${eventLine(1)}\n{broken\n`);
    assert.throws(() => loadSessionFile(terminatedLast), corruptAt(terminatedLast, 3));
    const notEvent = writeSession(`${headerLine}\n{"seq":1}\n`);
    assert.throws(() => loadSessionFile(notEvent), corruptAt(notEvent, 2));
  });

  test('a seq that does not increase is SESSION_CORRUPT naming its line', () => {
    const path = writeSession(`${headerLine}\n${eventLine(1)}\n${eventLine(2)}\n${eventLine(2)}\n`);
    assert.throws(() => loadSessionFile(path), corruptAt(path, 4));
    assert.throws(() => loadSessionFile(path), /seq 2 does not increase/);
  });
});

describe('SessionLog.open', () => {
  test('cuts a torn tail before appending, and keeps every whole event', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix) });
    log.append('turn/start', { turnId: 't1' });
    log.append('turn/end', { turnId: 't1', reason: 'completed', usage: usage(0, 0), steps: 0 });
    log.close();
    const intact = readFileSync(log.path, 'utf8');
    appendFileSync(log.path, '{"type":"turn/start","seq":3,"ti');

    const reopened = SessionLog.open(log.path);
    assert.equal(readFileSync(log.path, 'utf8'), intact);
    assert.equal(reopened.lastSeq, 2);
    reopened.append('turn/start', { turnId: 't2' });
    reopened.close();

    const loaded = loadSessionFile(log.path);
    assert.equal(loaded.tornTail, false);
    assert.deepEqual(
      loaded.events.map((event) => [event.seq, event.type]),
      [
        [1, 'turn/start'],
        [2, 'turn/end'],
        [3, 'turn/start'],
      ],
    );
  });

  test('adds the missing newline after a whole but unterminated last event', () => {
    const path = writeSession(`${headerLine}\n${eventLine(1)}`);
    const log = SessionLog.open(path);
    log.close();
    const loaded = loadSessionFile(path);
    assert.deepEqual(
      loaded.events.map((event) => event.type),
      ['turn/start', 'turn/end'],
    );
  });

  test('gives a file cut off before its header was complete a fresh header, and nothing else', () => {
    for (const text of ['', '{"type":"session/header","seq":0,"time":17']) {
      const path = writeSession(text, 'cut-20261130');
      const log = SessionLog.open(path);
      assert.equal(log.header.sessionId, 'cut-20261130');
      assert.equal(log.header.parentSession, null);
      assert.deepEqual(log.events, []);
      log.append('turn/start', { turnId: 't1' });
      log.close();
      const loaded = loadSessionFile(path);
      assert.equal(loaded.header.sessionId, 'cut-20261130');
      assert.deepEqual(
        loaded.events.map((event) => event.type),
        ['turn/start'],
      );
    }
    const foreign = writeSession('my notes, not a session', 'notes');
    assert.throws(() => SessionLog.open(foreign), corruptAt(foreign, 1));
    assert.equal(readFileSync(foreign, 'utf8'), 'my notes, not a session');
  });

  test('answers each tool call left without a result, so the repaired log passes the invariants', () => {
    const log = logAskingFor([
      ['c1', 'read_file'],
      ['c2', 'bash'],
      ['c3', 'grep'],
    ]);
    for (const [callId, name] of [
      ['c1', 'read_file'],
      ['c2', 'bash'],
      ['c3', 'grep'],
    ] as const) {
      log.append('tool/call', { turnId: 't1', step: 1, callId, name, arguments: {} });
    }
    log.append('tool/result', {
      turnId: 't1',
      step: 1,
      callId: 'c1',
      name: 'read_file',
      content: 'text',
      isError: false,
    });
    log.close();
    assert.notDeepEqual(checkSessionInvariants(loadSessionFile(log.path).events), []);

    const reopened = SessionLog.open(log.path);
    reopened.close();
    const repaired = loadSessionFile(log.path).events;
    assert.deepEqual(checkSessionInvariants(repaired), []);
    const interrupted = (callId: string, name: string) => ({
      turnId: 't1',
      step: 1,
      callId,
      name,
      content: INTERRUPTED_CALL_TEXT,
      isError: true,
      errorCode: 'INTERRUPTED',
    });
    assert.deepEqual(
      repaired.slice(8).map((event) => [event.type, event.data]),
      [
        ['tool/result', interrupted('c2', 'bash')],
        ['tool/result', interrupted('c3', 'grep')],
        ['step/end', { turnId: 't1', step: 1, finishReason: 'error', usage: usage(10, 5) }],
        ['turn/end', { turnId: 't1', reason: 'interrupted', usage: usage(10, 5), steps: 1 }],
      ],
    );
    SessionLog.open(log.path).close();
    assert.equal(loadSessionFile(log.path).events.length, repaired.length, 'repair is idempotent');
  });

  test('closes an interrupted turn exactly once, without touching history', () => {
    const log = logAskingFor([['c1', 'bash']]);
    log.append('step/end', {
      turnId: 't1',
      step: 1,
      finishReason: 'tool-calls',
      usage: usage(10, 5),
    });
    log.append('step/start', { turnId: 't1', step: 2 });
    log.append('assistant/chunk', { turnId: 't1', step: 2, kind: 'text', text: 'half' });
    log.close();
    const history = readFileSync(log.path, 'utf8');

    const reopened = SessionLog.open(log.path);
    assert.ok(readFileSync(log.path, 'utf8').startsWith(history));
    const repairs = reopened.events.slice(7);
    assert.deepEqual(
      repairs.map((event) => [event.seq, event.type, event.data]),
      [
        [8, 'step/end', { turnId: 't1', step: 2, finishReason: 'error', usage: usage(0, 0) }],
        [9, 'turn/end', { turnId: 't1', reason: 'interrupted', usage: usage(10, 5), steps: 2 }],
      ],
    );
    reopened.close();
    assert.equal(loadSessionFile(log.path).events.length, 9);

    SessionLog.open(log.path).close();
    const final = loadSessionFile(log.path).events;
    assert.equal(final.length, 9);
    assert.deepEqual(checkSessionInvariants(final), []);
  });
});

describe('repairEvents', () => {
  const event = (seq: number, type: string, data: unknown) =>
    ({ seq, time: 0, type, data }) as SessionEvent;

  test('proposes nothing for a closed stream', () => {
    assert.deepEqual(
      repairEvents([
        event(1, 'turn/start', { turnId: 't1' }),
        event(2, 'turn/end', { turnId: 't1', reason: 'completed', usage: usage(0, 0), steps: 0 }),
      ]),
      [],
    );
  });

  test('takes a step’s usage from its logged message and closes steps before their turn', () => {
    const repairs = repairEvents([
      event(1, 'turn/start', { turnId: 't1' }),
      event(2, 'step/start', { turnId: 't1', step: 1 }),
      event(3, 'assistant/message', {
        turnId: 't1',
        step: 1,
        usage: { input: 3, output: 4, reasoning: 1 },
      }),
    ]);
    assert.deepEqual(repairs, [
      {
        type: 'step/end',
        data: {
          turnId: 't1',
          step: 1,
          finishReason: 'error',
          usage: { input: 3, output: 4, reasoning: 1 },
        },
      },
      {
        type: 'turn/end',
        data: {
          turnId: 't1',
          reason: 'interrupted',
          usage: { input: 3, output: 4, reasoning: 1 },
          steps: 1,
        },
      },
    ]);
  });
});
