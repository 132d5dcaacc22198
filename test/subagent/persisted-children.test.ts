import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { persistedChildren } from '../../src/subagent/persisted-children.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const header = (sessionId: string, parentSession: string | null, created: string) =>
  `${JSON.stringify({
    type: 'session/header',
    seq: 0,
    time: 0,
    data: { version: 1, sessionId, created, parentSession, seedLength: 0, delegationDepth: 1 },
  })}\n`;

test('persistedChildren reads headers only, oldest first, and skips what is not a session file', () => {
  const folder = temporaryFolder('loom-persisted-');
  writeFileSync(join(folder, 'b.jsonl'), header('b', 'parent', '2026-11-30T10:00:02.000Z'));
  writeFileSync(
    join(folder, 'a.jsonl'),
    `${header('a', 'parent', '2026-11-30T10:00:01.000Z')}{"type":"broken"`,
  );
  writeFileSync(
    join(folder, 'other.jsonl'),
    header('other', 'someone', '2026-11-30T10:00:00.000Z'),
  );
  writeFileSync(join(folder, 'root.jsonl'), header('root', null, '2026-11-30T10:00:00.000Z'));
  writeFileSync(join(folder, 'empty.jsonl'), '');
  writeFileSync(join(folder, 'garbage.jsonl'), 'not json\n');
  writeFileSync(join(folder, 'c.txt'), header('c', 'parent', '2026-11-30T10:00:00.000Z'));
  mkdirSync(join(folder, 'folder.jsonl'));
  execFileSync('mkfifo', [join(folder, 'pipe.jsonl')]);

  assert.deepEqual(persistedChildren(folder, 'parent'), [
    { id: 'a', created: '2026-11-30T10:00:01.000Z' },
    { id: 'b', created: '2026-11-30T10:00:02.000Z' },
  ]);
  assert.deepEqual(persistedChildren(join(folder, 'missing'), 'parent'), []);
});
