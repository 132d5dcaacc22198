import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SessionLog } from '../../src/core/session-log.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  runLoom,
  runScripted,
  scriptedFolders,
  startLoom,
  writeScriptedModel,
} from './loom-process.js';

test('loom run: a scripted turn writes and reads a file, streaming the answer', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'make a file',
        [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'hi there' } },
          { name: 'read_file', arguments: { path: 'a.txt' } },
        ],
        'read back: {{lastToolResult}}',
      ),
    ],
  });
  const result = await runScripted(folders, 'make a file');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(folders.workspace, 'a.txt'), 'utf8'), 'hi there');
  assert.match(result.stdout, /read back: .*hi there/);
  assert.match(result.stderr, /write_file/);
});

test('loom run --json prints every session event as one NDJSON line', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok: {{prompt}}' } });
  const result = await runLoom(['run', '--json', '--model', `scripted:${model}`, '--cwd', home], {
    home,
    input: 'from standard input',
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  for (const line of lines)
    assert.deepEqual(Object.keys(line).sort(), ['data', 'seq', 'sessionId', 'time', 'type']);
  assert.equal(lines[0].type, 'turn/start');
  assert.equal(lines.at(-1).type, 'turn/end');
  assert.equal(lines.at(-1).data.reason, 'completed');
  const text = lines
    .filter((line) => line.type === 'assistant/message')
    .map((line) => line.data.text);
  assert.deepEqual(text, ['ok: from standard input']);
});

test('loom run: a provider error exits 1 with the provider message', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [{ when: '.*', error: 'upstream 500: overloaded' }],
  });
  const result = await runLoom(['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'], {
    home,
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /upstream 500: overloaded/);
});

test('loom run: a malformed scripted model fails at start naming the field', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [{ when: '(', reply: 'x' }] });
  const result = await runLoom(['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'], {
    home,
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /rules\[0\]\.when/);
});

test('loom run: SIGINT on a hanging turn exits 130 with the turn logged as aborted', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [{ when: 'stuck', hang: true }] });
  const run = startLoom(['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'stuck'], {
    home,
  });
  await run.waitForLine(/"type":"request\/header"/);
  run.child.kill('SIGINT');
  const { code } = await run.exited;
  assert.equal(code, 130);
  const [file] = sessionPaths(home);
  assert.ok(file);
  const log = SessionLog.open(file);
  const end = log.events.at(-1);
  log.close();
  assert.ok(end);
  assert.equal(end.type, 'turn/end');
  assert.equal((end.data as { reason: string }).reason, 'aborted');
});

test('SIGKILL mid-turn leaves a session that loads, repaired with turn/end interrupted', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [{ when: 'stuck', hang: true }] });
  const run = startLoom(['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'stuck'], {
    home,
  });
  await run.waitForLine(/"type":"request\/header"/);
  run.child.kill('SIGKILL');
  await run.exited;
  const printed = run
    .stdout()
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as { type: string; seq: number; data: unknown });
  const [file] = sessionPaths(home);
  assert.ok(file);
  const log = SessionLog.open(file);
  const events = log.events;
  log.close();
  for (const seen of printed) {
    const stored = events.find((event) => event.seq === seen.seq);
    assert.deepEqual(
      { type: stored?.type, data: stored?.data },
      { type: seen.type, data: seen.data },
    );
  }
  const end = events.at(-1);
  assert.ok(end);
  assert.equal(end.type, 'turn/end');
  assert.equal((end.data as { reason: string }).reason, 'interrupted');
  assert.deepEqual(checkSessionInvariants(events), []);
});
