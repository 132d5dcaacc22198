/**
 * `loom compact --session ID` through bin/loom, on a session `loom run` made with a scripted
 * model that read several files: it prints the compaction line and exits 0, the stored view
 * carries the stubs, `loom run --session ID` continues with the pruned view and `recall` gives a
 * pruned result back byte for byte; a second compaction is skipped; an unknown id and a session
 * another process holds are refused.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compactedView } from '../../src/context/compacted-view.js';
import { prunedStub } from '../../src/context/pruning.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { ndjsonLines, sessionIdOf, toolResults } from '../helpers/session-files.js';
import { holdSession } from '../helpers/session-holder.js';
import { runLoom, runScripted, type ScriptedFolders, scriptedFolders } from './loom-process.js';

const FILES = 6;

const readSteps = Array.from({ length: FILES }, (_, index) => ({
  tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
}));

function readingFolders(): ScriptedFolders {
  const folders = scriptedFolders({
    rules: [
      { when: '^read every file$', steps: [...readSteps, { reply: 'read them all' }] },
      {
        when: '^recall the first$',
        steps: [{ tools: [{ name: 'recall', arguments: { id: 'call_1' } }] }, { reply: 'ok' }],
      },
    ],
  });
  for (let index = 1; index <= FILES; index++) {
    writeFileSync(
      join(folders.workspace, `file-${index}.txt`),
      `file ${index}: ${'abcdefghij'.repeat(200)}\n`,
    );
  }
  return folders;
}

const sessionFile = (folders: ScriptedFolders, id: string) =>
  join(folders.home, 'sessions', `${id}.jsonl`);

const compactions = (events: ReadonlyArray<{ type: string; data: unknown }>) =>
  events
    .filter((event) => event.type === 'context/compact')
    .map((event) => event.data as SessionEvent<'context/compact'>['data']);

test('loom compact prunes a closed session; loom run --session continues with it and recall works', async () => {
  const folders = readingFolders();
  const first = await runScripted(folders, 'read every file', { json: true });
  assert.equal(first.code, 0, first.stderr);
  const sessionId = sessionIdOf(first.stdout);
  assert.equal(compactions(ndjsonLines(first.stdout)).length, 0);

  const compact = await runLoom(['compact', '--session', sessionId], { home: folders.home });
  assert.equal(compact.code, 0, compact.stderr);
  // Seven steps (six reads and the reply); the last three (default keepSteps) keep theirs.
  assert.match(compact.stdout, /^compacted: 4 tool results pruned \(\S+ → \S+ tokens\)\n$/);
  const { events } = loadSessionFile(sessionFile(folders, sessionId));
  const [logged] = compactions(events);
  assert.ok(logged);
  assert.equal(logged.trigger, 'manual');
  assert.deepEqual([...logged.pruned].sort(), ['call_1', 'call_2', 'call_3', 'call_4']);
  const stubs = compactedView(events).filter(
    (message) =>
      message.role === 'tool' && message.content === prunedStub(message.toolName, message.callId),
  );
  assert.equal(stubs.length, 4);

  const again = await runScripted(folders, 'recall the first', {
    json: true,
    args: ['--session', sessionId],
  });
  assert.equal(again.code, 0, again.stderr);
  const lines = ndjsonLines(again.stdout);
  // The continued request was sized with the pruning: about the compaction's "after".
  const usage = lines.find((line) => line.type === 'context/usage');
  assert.ok(
    usage && (usage.data.tokens as number) < logged.after + 100,
    `${JSON.stringify(usage)} after ${JSON.stringify(logged)}`,
  );
  const recalled = toolResults(lines, 'recall')[0];
  const original = toolResults(events).find((result) => result.callId === 'call_1');
  assert.ok(recalled && original);
  assert.equal(recalled.isError, false);
  assert.equal(recalled.content, original.content);

  // call_1 to call_4 stay pruned; what is left is of the last three steps once more.
  const skipped = await runLoom(['compact', '--session', sessionId], { home: folders.home });
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stdout, /^(compacted: \d+ tool results? pruned|compaction skipped: )/);
});

test('loom compact: nothing to prune is skipped; an unknown id and a held session are refused', async () => {
  const folders = scriptedFolders({ default: { reply: 'hello' } });
  const run = await runScripted(folders, 'hi', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = sessionIdOf(run.stdout);

  const skipped = await runLoom(['compact', '--session', sessionId], { home: folders.home });
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stdout, /^compaction skipped: it would not make the request smaller/);
  const { events } = loadSessionFile(sessionFile(folders, sessionId));
  assert.equal(events.filter((event) => event.type === 'context/compact-skipped').length, 1);
  assert.equal(compactions(events).length, 0);

  const unknown = await runLoom(['compact', '--session', 'no-such-session'], {
    home: folders.home,
  });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no session no-such-session .*SESSION_NOT_FOUND/);
  assert.equal(unknown.stdout, '');

  const holder = await holdSession(sessionFile(folders, sessionId));
  try {
    const busy = await runLoom(['compact', '--session', sessionId], { home: folders.home });
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, new RegExp(`SESSION_BUSY.*process ${holder.pid}`));
  } finally {
    await holder.finish();
  }
});
