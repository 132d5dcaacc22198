import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { SessionStore } from '../../src/core/session-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const folderPrefix = 'loom-session-store-';

describe('SessionStore', () => {
  test('creates sessions in $LOOM_HOME/sessions and opens them by id', () => {
    const home = temporaryFolder(folderPrefix);
    const store = new SessionStore(home);
    assert.equal(store.directory, join(home, 'sessions'));
    const log = store.create({ sessionId: 'one', cwd: '/work' });
    assert.equal(log.path, store.pathOf('one'));
    log.append('turn/start', { turnId: 't1' });
    log.close();
    const reopened = store.open('one');
    assert.equal(reopened.header.cwd, '/work');
    assert.equal(reopened.events[0]?.type, 'turn/start');
    reopened.close();
  });

  test('opening an unknown id is SESSION_NOT_FOUND naming the id', () => {
    const store = new SessionStore(temporaryFolder(folderPrefix));
    assert.throws(
      () => store.open('nobody-home'),
      (error: unknown) =>
        error instanceof LoomError &&
        error.code === 'SESSION_NOT_FOUND' &&
        error.message.includes('nobody-home'),
    );
    assert.throws(() => store.pathOf('../../etc/passwd'), /may hold only/);
  });

  test('lists nothing before the first session', () => {
    assert.deepEqual(new SessionStore(temporaryFolder(folderPrefix)).list(), []);
  });

  test('lists summaries oldest first, and damaged files with their error', () => {
    const store = new SessionStore(temporaryFolder(folderPrefix));
    const first = store.create({ sessionId: 'a-first' });
    first.append('turn/start', { turnId: 't1' });
    first.append('user/message', {
      text: `  fix the\nbuild ${'x'.repeat(100)}`,
      delivery: 'followup',
      turnId: 't1',
    });
    first.append('turn/end', {
      turnId: 't1',
      reason: 'completed',
      usage: { input: 0, output: 0 },
      steps: 0,
    });
    first.append('turn/start', { turnId: 't2' });
    first.append('user/message', { text: 'second prompt', delivery: 'followup', turnId: 't2' });
    first.close();
    store.create({ sessionId: 'b-child', parentSession: 'a-first' }).close();
    writeFileSync(join(store.directory, 'c-broken.jsonl'), 'not a session\n');
    writeFileSync(join(store.directory, 'notes.txt'), 'ignored');

    const summaries = store.list();
    const byId = new Map(summaries.map((summary) => [summary.id, summary]));
    assert.deepEqual(
      summaries.filter((summary) => !summary.error).map((summary) => summary.id),
      ['a-first', 'b-child'],
    );
    const firstSummary = byId.get('a-first');
    assert.equal(firstSummary?.turns, 2);
    assert.ok(
      (firstSummary?.lastUsed ?? '') >= (firstSummary?.created ?? '~'),
      'a session is last used at its last event, never before it was created',
    );
    assert.equal(firstSummary?.parentSession, null);
    assert.equal(firstSummary?.firstPrompt.length, 80);
    assert.ok(firstSummary?.firstPrompt.startsWith('fix the build xxx'));
    assert.ok(firstSummary?.firstPrompt.endsWith('…'));
    assert.deepEqual(byId.get('b-child'), {
      id: 'b-child',
      created: byId.get('b-child')?.created,
      lastUsed: byId.get('b-child')?.created,
      firstPrompt: '',
      turns: 0,
      parentSession: 'a-first',
      delegationDepth: 0,
    });
    const broken = byId.get('c-broken');
    assert.match(broken?.error ?? '', /corrupt at line 1/);
    assert.equal(summaries.length, 3);
    const created = summaries.map((summary) => summary.created);
    assert.deepEqual(created, [...created].sort());
  });
});
