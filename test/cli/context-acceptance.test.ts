/**
 * Issue 32's acceptance through bin/loom, over the scripted model with a declared 16k window:
 * a turn of 40 steps that each read a 2 KB file completes with every request under the window
 * and `recall` giving a pruned result back byte for byte; a request the provider refuses as too
 * large is compacted and retried once; a kill -9 while the model writes a summary leaves a
 * session that loads and continues. (`loom compact` on a closed session: compact.test.ts.)
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SUMMARY_REQUEST_START } from '../../src/context/summary-prompt.js';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { ndjsonLines, sessionIdOf, toolResults } from '../helpers/session-files.js';
import {
  runLoom,
  runScripted,
  type ScriptedFolders,
  scriptedFolders,
  startScriptedRun,
  writeScriptedModel,
} from './loom-process.js';

const WINDOW = 16_000;
const STEPS = 40;

function dataOf<Type extends SessionEventType>(
  lines: ReadonlyArray<{ type: string; data: unknown }>,
  type: Type,
): SessionEvent<Type>['data'][] {
  return lines
    .filter((line) => line.type === type)
    .map((line) => line.data as SessionEvent<Type>['data']);
}

const readSteps = (usage?: { input: number; output: number }) =>
  Array.from({ length: STEPS }, (_, index) => ({
    tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
    ...(usage ? { usage } : {}),
  }));

/** Writes `count` files of 2 KB, every one different, into the workspace. */
function writeFiles(folders: ScriptedFolders, count: number): void {
  for (let index = 1; index <= count; index++) {
    const line = `file ${index}: ${'abcdefghij'.repeat(6)}\n`;
    writeFileSync(
      join(folders.workspace, `file-${index}.txt`),
      line.repeat(Math.ceil(2048 / line.length)),
    );
  }
}

const sessionFile = (folders: ScriptedFolders, id: string) =>
  join(folders.home, 'sessions', `${id}.jsonl`);

test('loom run: 40 steps of 2 KB reads over a 16k window complete under it, and recall gives a pruned result back byte for byte', async () => {
  const folders = scriptedFolders({
    context: WINDOW,
    rules: [
      {
        when: '^read every file$',
        steps: [
          ...readSteps(),
          { tools: [{ name: 'recall', arguments: { id: 'call_1' } }] },
          { reply: 'read them all' },
        ],
      },
    ],
  });
  writeFiles(folders, STEPS);
  const run = await runScripted(folders, 'read every file', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);

  // The scripted model refuses any request over its window, so each answered one was under it.
  const usages = dataOf(lines, 'context/usage');
  assert.equal(usages.length, STEPS + 2);
  for (const usage of usages) {
    assert.equal(usage.window, WINDOW);
    assert.ok(usage.tokens < WINDOW, `a request of ${usage.tokens} tokens`);
  }
  assert.equal(dataOf(lines, 'assistant/message').length, STEPS + 2);
  const compactions = dataOf(lines, 'context/compact');
  assert.ok(compactions.length > 0);
  for (const compaction of compactions) {
    assert.equal(compaction.trigger, 'auto');
    assert.ok(compaction.after < compaction.before, JSON.stringify(compaction));
  }
  assert.ok(compactions.some((compaction) => compaction.pruned.includes('call_1')));
  assert.equal(dataOf(lines, 'context/warning').length, 1);

  const original = toolResults(lines, 'read_file').find((result) => result.callId === 'call_1');
  const [recalled] = toolResults(lines, 'recall');
  assert.ok(original && recalled);
  assert.equal(recalled.isError, false);
  assert.equal(recalled.content, original.content);
  assert.match(original.content, /file 1: abcdefghij/);
  assert.match(run.stdout, /read them all/);
});

test('loom run: a request the provider refuses as too large is compacted and retried once, and the turn goes on', async () => {
  // The model reports far fewer prompt tokens than it is sent, so Loom's sizing never reaches
  // compactAt and the first request past the window is refused: the recovery is the only guard.
  const folders = scriptedFolders({
    context: WINDOW,
    rules: [
      {
        when: '^read every file$',
        steps: [...readSteps({ input: 100, output: 10 }), { reply: 'read them all' }],
      },
    ],
  });
  writeFiles(folders, STEPS);
  const run = await runScripted(folders, 'read every file', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);
  const compactions = dataOf(lines, 'context/compact');
  assert.equal(compactions.length, 1, JSON.stringify(compactions));
  const [overflow] = compactions;
  assert.equal(overflow?.trigger, 'overflow');
  assert.ok((overflow?.before ?? 0) >= WINDOW, JSON.stringify(overflow));
  assert.ok((overflow?.pruned.length ?? 0) > 0);
  // One refused request, retried once: every step still has its one answer.
  assert.equal(dataOf(lines, 'assistant/message').length, STEPS + 1);
  assert.equal(dataOf(lines, 'tool/result').length, STEPS);
  const end = dataOf(lines, 'turn/end').at(-1);
  assert.equal(end?.reason, 'completed');
  assert.match(run.stdout, /read them all/);
});

test('loom run: a kill -9 while the model writes a summary leaves a session that loads and continues', async () => {
  // Three prompts of about 5k tokens each pass compactAt (80% of 16k) with nothing to prune, so
  // the third turn asks for a summary, which never comes: the process is killed meanwhile.
  const note = (index: number) => `note ${index}: ${'the quick brown fox '.repeat(1000)}`;
  const model = (summary: { hang: true } | { reply: string }) => ({
    context: WINDOW,
    rules: [{ when: `^${SUMMARY_REQUEST_START}`, ...summary }],
    default: { reply: 'noted' },
  });
  const folders = scriptedFolders(model({ hang: true }));
  writeFileSync(join(folders.home, 'config.yaml'), 'context:\n  keepSteps: 1\n');

  const first = await runScripted(folders, note(1), { json: true });
  assert.equal(first.code, 0, first.stderr);
  const sessionId = sessionIdOf(first.stdout);
  const session = ['--session', sessionId];
  const second = await runScripted(folders, note(2), { json: true, args: session });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(dataOf(ndjsonLines(second.stdout), 'context/compact').length, 0);

  const third = startScriptedRun(folders, note(3), { json: true, args: session });
  await third.waitForLine(/"type":"context\/summarizing"/);
  third.child.kill('SIGKILL');
  assert.equal((await third.exited).signal, 'SIGKILL');

  const killed = loadSessionFile(sessionFile(folders, sessionId));
  assert.equal(dataOf(killed.events, 'context/summarizing').length, 1);
  assert.equal(dataOf(killed.events, 'context/compact').length, 0);
  const shown = await runLoom(['sessions', 'show', sessionId], { home: folders.home });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /note 3: the quick brown fox/);

  writeScriptedModel(folders.home, model({ reply: 'the user keeps notes; all were noted' }));
  const fourth = await runScripted(folders, 'go on', { json: true, args: session });
  assert.equal(fourth.code, 0, fourth.stderr);
  const lines = ndjsonLines(fourth.stdout);
  const [summarized] = dataOf(lines, 'context/compact');
  assert.ok(summarized, fourth.stdout.slice(0, 2000));
  assert.match(summarized.summary, /the user keeps notes; all were noted/);
  assert.ok(summarized.after < summarized.before, JSON.stringify(summarized));
  assert.equal(dataOf(lines, 'turn/end').at(-1)?.reason, 'completed');
  assert.match(fourth.stdout, /noted/);
  for (const usage of dataOf(lines, 'context/usage')) assert.ok(usage.tokens < WINDOW);
});
