/**
 * The one-time note for a model the catalog does not know, through `bin/loom run` against a
 * loopback OpenAI-compatible server: a turn of three requests to `nosuchmodel` prints the note
 * (naming the config key) on stderr exactly once; a model the catalog knows prints none.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runLoom } from '../cli/loom-process.js';
import { type ChatAnswer, startRecordingChatServer } from '../helpers/recording-chat-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const NOTE = 'the model catalog does not know';

async function runWith(model: string, t: { after(fn: () => unknown): void }) {
  const home = temporaryFolder('loom-note-home-');
  const workspace = temporaryFolder('loom-note-work-');
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  writeFileSync(join(workspace, 'b.txt'), 'beta\n');
  const answers: ChatAnswer[] = [
    { calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { calls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
    { text: 'read both' },
  ];
  const server = await startRecordingChatServer(answers);
  t.after(() => server.close());
  const spec = `openai-compatible:${model}@${server.baseURL}`;
  const result = await runLoom(['run', 'read both files', '--model', spec], {
    home,
    cwd: workspace,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'read both');
  assert.equal(server.bodies.length, 3);
  return { spec, stderr: result.stderr };
}

test('loom run notes a model the catalog does not know once, naming the config key', async (t) => {
  const { spec, stderr } = await runWith('nosuchmodel', t);
  assert.equal(stderr.split(NOTE).length - 1, 1, stderr);
  assert.ok(stderr.includes(`${NOTE} ${spec}; assuming a 32,000-token window`), stderr);
  assert.ok(stderr.includes(`set models."${spec}".context`), stderr);
});

test('loom run prints no note for a model the catalog knows', async (t) => {
  const { stderr } = await runWith('gpt-4o-mini', t);
  assert.ok(!stderr.includes(NOTE), stderr);
});
