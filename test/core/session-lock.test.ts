import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs, {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { acquireSessionLock, lockPathOf } from '../../src/core/session-lock.js';
import { SessionLog } from '../../src/core/session-log.js';
import { deadPid, holdSession } from '../helpers/session-holder.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const folderPrefix = 'loom-session-lock-';

function newSession(): string {
  const log = SessionLog.create({ directory: temporaryFolder(folderPrefix), sessionId: 'locked' });
  log.close();
  return log.path;
}

const busyNaming = (pid: number) => (error: unknown) =>
  error instanceof LoomError &&
  error.code === 'SESSION_BUSY' &&
  error.message.includes(`process ${pid} `);

describe('the writer lock of a session', () => {
  test('lives beside the session file while a log is open, and goes with close()', () => {
    const log = SessionLog.create({ directory: temporaryFolder(folderPrefix), sessionId: 's1' });
    const lock = lockPathOf(log.path);
    assert.equal(lock, join(log.path, '..', 's1.lock'));
    assert.match(readFileSync(lock, 'utf8'), new RegExp(`^${process.pid}\\b`));
    assert.throws(() => acquireSessionLock(log.path), busyNaming(process.pid));
    log.close();
    assert.equal(existsSync(lock), false);
  });

  test('a second writer fails at once with SESSION_BUSY naming the holder; then it is free', async () => {
    const path = newSession();
    const holder = await holdSession(path, { appendOnFinish: true });
    assert.throws(() => SessionLog.open(path), busyNaming(holder.pid));
    assert.throws(() => SessionLog.open(path), /one writer at a time/);
    assert.equal(await holder.finish(), 0);
    assert.equal(existsSync(lockPathOf(path)), false);
    const log = SessionLog.open(path);
    assert.deepEqual(
      log.events.map((event) => event.type),
      ['turn/start', 'turn/end'],
    );
    log.close();
  });

  test('a writer that exits without closing its log still lets go of the lock', async () => {
    const path = newSession();
    const holder = await holdSession(path, { exitWithoutClose: true, appendOnFinish: true });
    assert.equal(await holder.finish(), 0);
    assert.equal(existsSync(lockPathOf(path)), false);
    assert.equal(loadSessionFile(path).events[0]?.type, 'turn/start');
  });

  test('the lock of a killed writer is taken over', async () => {
    const path = newSession();
    const holder = await holdSession(path);
    await holder.kill();
    assert.match(readFileSync(lockPathOf(path), 'utf8'), new RegExp(`^${holder.pid}\\b`));
    const log = SessionLog.open(path);
    assert.match(readFileSync(lockPathOf(path), 'utf8'), new RegExp(`^${process.pid}\\b`));
    log.close();
    assert.equal(existsSync(lockPathOf(path)), false);
  });

  test('a lock naming a process that is gone, or garbage, is taken over', async () => {
    const path = newSession();
    const stale = [`${await deadPid()}\n`, `${process.pid} 1\n`, '99999999999\n', '', 'garbage'];
    for (const content of stale) {
      writeFileSync(lockPathOf(path), content);
      const log = SessionLog.open(path);
      log.close();
      assert.equal(existsSync(lockPathOf(path)), false, JSON.stringify(content));
    }
  });

  test('racing writers on a stale lock: exactly one takes it over, the others are busy naming it', async () => {
    const path = newSession();
    const stale = await deadPid();
    writeFileSync(lockPathOf(path), `${stale} 1\n`);
    writeFileSync(`${lockPathOf(path)}.takeover-${stale}`, `${await deadPid()} 1\n`);
    const moduleUrl = new URL('../../src/core/session-log.ts', import.meta.url).href;
    const script = join(temporaryFolder(folderPrefix), 'race.mjs');
    writeFileSync(
      script,
      [
        `const { SessionLog } = await import(${JSON.stringify(moduleUrl)});`,
        `process.stdin.resume();`,
        `process.stdout.write('ready\\n');`,
        `await new Promise((resolve) => process.stdin.once('data', resolve));`,
        `let log;`,
        `try {`,
        `  log = SessionLog.open(${JSON.stringify(path)});`,
        `  process.stdout.write('won\\n');`,
        `} catch (error) {`,
        `  process.stdout.write(error.code + ': ' + error.message + '\\n');`,
        `}`,
        `process.stdin.on('end', () => { log?.close(); process.stdin.pause(); });`,
      ].join('\n'),
    );
    const racers = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      child.stdout.setEncoding('utf8');
      let output = '';
      let onReady = () => {};
      const ready = new Promise<void>((resolve) => {
        onReady = resolve;
      });
      const exited = once(child, 'exit');
      const answered = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.startsWith('ready\n')) onReady();
          const lines = output.split('\n');
          if (lines.length > 2) resolve(lines[1] as string);
        });
        exited.then(() => reject(new Error(`a racer exited early: ${output}`)));
      });
      return { child, ready: Promise.race([ready, answered]), answered, exited };
    });
    try {
      await Promise.all(racers.map((racer) => racer.ready));
      for (const racer of racers) racer.child.stdin.write('go\n');
      const answers = await Promise.all(racers.map((racer) => racer.answered));
      const winners = racers.filter((_, index) => answers[index] === 'won');
      assert.equal(winners.length, 1, answers.join('\n'));
      const winner = winners[0]?.child.pid as number;
      for (const answer of answers.filter((text) => text !== 'won')) {
        assert.ok(answer.startsWith('SESSION_BUSY: '), answer);
        assert.ok(answer.includes(`process ${winner} `), answer);
      }
    } finally {
      for (const racer of racers) racer.child.stdin.end();
      await Promise.all(racers.map((racer) => racer.exited));
    }
    assert.equal(existsSync(lockPathOf(path)), false);
    assert.equal(existsSync(`${lockPathOf(path)}.takeover-${stale}`), false);
    SessionLog.open(path).close();
  });

  test('a lock taken while this process holds another in the folder is a hard link to it', () => {
    const directory = temporaryFolder(folderPrefix);
    const first = SessionLog.create({ directory, sessionId: 'first' });
    const second = SessionLog.create({ directory, sessionId: 'second' });
    const firstLock = lockPathOf(first.path);
    const secondLock = lockPathOf(second.path);
    assert.equal(statSync(secondLock).ino, statSync(firstLock).ino, 'no new file was written');
    assert.match(readFileSync(secondLock, 'utf8'), new RegExp(`^${process.pid}\\b`));
    first.close();
    assert.equal(existsSync(firstLock), false);
    assert.match(readFileSync(secondLock, 'utf8'), new RegExp(`^${process.pid}\\b`));
    assert.throws(() => acquireSessionLock(second.path), busyNaming(process.pid));
    second.close();
    assert.deepEqual(readdirSync(directory).sort(), ['first.jsonl', 'second.jsonl']);
  });

  test('sessions made one after the other soon lock through an anchor: no file made or freed per lock', async () => {
    const directory = temporaryFolder(folderPrefix);
    const anchors = join(directory, '.lock-anchors');
    const dead = await deadPid();
    mkdirSync(anchors);
    writeFileSync(join(anchors, `${dead}-left.anchor`), `${dead}\n`);
    const inodes: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const log = SessionLog.create({ directory, sessionId: `s${index}` });
      const lock = lockPathOf(log.path);
      assert.match(readFileSync(lock, 'utf8'), new RegExp(`^${process.pid}\\b`));
      inodes.push(statSync(lock).ino);
      log.close();
      assert.equal(existsSync(lock), false);
    }
    const [anchor, ...others] = readdirSync(anchors);
    assert.deepEqual(others, [], 'the dead process’s anchor was removed');
    assert.match(String(anchor), new RegExp(`^${process.pid}-.*\\.anchor$`));
    const anchorInode = statSync(join(anchors, String(anchor))).ino;
    assert.deepEqual(inodes.slice(3), [anchorInode, anchorInode, anchorInode]);
    assert.equal(new Set(inodes.slice(0, 3)).has(anchorInode), false);
    assert.throws(() => {
      const log = SessionLog.create({ directory, sessionId: 'held' });
      try {
        acquireSessionLock(log.path);
      } finally {
        log.close();
      }
    }, busyNaming(process.pid));
  });

  test('locks of this process are released without reading them back; one put in their place stays', () => {
    const directory = temporaryFolder(folderPrefix);
    const original = fs.readFileSync;
    const lockReads: string[] = [];
    Object.assign(fs, {
      readFileSync: (...args: Parameters<typeof fs.readFileSync>) => {
        if (String(args[0]).endsWith('.lock')) lockReads.push(String(args[0]));
        return original(...args);
      },
    });
    syncBuiltinESMExports();
    let replaced: ReturnType<typeof acquireSessionLock>;
    try {
      const first = acquireSessionLock(join(directory, 'first.jsonl'));
      const linked = acquireSessionLock(join(directory, 'linked.jsonl'));
      first.release();
      linked.release();
      for (let index = 0; index < 4; index += 1) {
        SessionLog.create({ directory, sessionId: `before-${index}` }).close();
      }
      const viaAnchor = acquireSessionLock(join(directory, 'via-anchor.jsonl'));
      const [anchor] = readdirSync(join(directory, '.lock-anchors'));
      const anchorInode = statSync(join(directory, '.lock-anchors', String(anchor))).ino;
      assert.equal(statSync(viaAnchor.path).ino, anchorInode);
      replaced = acquireSessionLock(join(directory, 'replaced.jsonl'));
      viaAnchor.release();
      // Another process's lock takes the place of ours (as a takeover would put it there).
      writeFileSync(`${replaced.path}.new`, '1\n');
      renameSync(`${replaced.path}.new`, replaced.path);
      replaced.release();
    } finally {
      Object.assign(fs, { readFileSync: original });
      syncBuiltinESMExports();
    }
    assert.equal(readFileSync(replaced.path, 'utf8'), '1\n');
    assert.deepEqual(lockReads, [replaced.path], 'only the lock put in place of ours was read');
    assert.deepEqual(
      readdirSync(directory).filter((name) => name.endsWith('.lock')),
      ['replaced.lock'],
    );
  });

  test('a process’s lock anchor goes with it when it exits', async () => {
    const directory = temporaryFolder(folderPrefix);
    const sessionLogUrl = new URL('../../src/core/session-log.ts', import.meta.url).href;
    const script = [
      `const { SessionLog } = await import(${JSON.stringify(sessionLogUrl)});`,
      `for (let index = 0; index < 5; index += 1)`,
      `  SessionLog.create({ directory: ${JSON.stringify(directory)}, sessionId: 's' + index }).close();`,
      `const { readdirSync } = await import('node:fs');`,
      `process.stdout.write(String(readdirSync(${JSON.stringify(join(directory, '.lock-anchors'))}).length));`,
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString('utf8');
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, errors);
    assert.equal(output, '1', 'the process made one anchor');
    assert.deepEqual(readdirSync(directory).sort(), [
      's0.jsonl',
      's1.jsonl',
      's2.jsonl',
      's3.jsonl',
      's4.jsonl',
    ]);
  });

  test('a sessions folder removed after a first session is made again for the next one', () => {
    const directory = join(temporaryFolder(folderPrefix), 'sessions');
    SessionLog.create({ directory, sessionId: 'before' }).close();
    rmSync(directory, { recursive: true });
    const log = SessionLog.create({ directory, sessionId: 'after' });
    log.append('turn/start', { turnId: 't1' });
    log.close();
    assert.deepEqual(readdirSync(directory), ['after.jsonl']);
    assert.equal(loadSessionFile(log.path).events.length, 1);
  });
});
