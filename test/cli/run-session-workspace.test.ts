import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { sessionIdOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

const model = {
  rules: [
    callsThenReply(
      '^write (\\S+)$',
      [{ name: 'write_file', arguments: { path: '{{1}}', content: 'hello' } }],
      'wrote {{1}}',
    ),
  ],
  default: { reply: 'heard: {{prompt}}' },
};

test('loom run --session refuses a --cwd other than the session workspace, naming both folders', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder('loom-workspace-');
  const other = temporaryFolder('loom-other-');
  const path = writeScriptedModel(home, model);
  const scripted = `scripted:${path}`;
  const first = await runLoom(['run', '--json', '--model', scripted, '--cwd', workspace, 'hi'], {
    home,
  });
  assert.equal(first.code, 0, first.stderr);
  const id = sessionIdOf(first.stdout);
  const sessionFile = join(home, 'sessions', `${id}.jsonl`);
  const before = readFileSync(sessionFile);

  const moved = await runLoom(
    ['run', '--model', scripted, '--session', id, '--cwd', other, 'write moved.txt'],
    { home },
  );
  assert.equal(moved.code, 1, 'a bad --cwd is a usage failure like any other of loom run');
  assert.equal(moved.stdout, '');
  assert.ok(
    moved.stderr.includes(`session ${id} works in ${workspace}, not in ${other} (--cwd)`),
    moved.stderr,
  );
  assert.deepEqual(readFileSync(sessionFile), before, 'the session is untouched');
  assert.deepEqual(readdirSync(other), [], 'nothing ran in the other folder');

  // Without --cwd the session goes on in its own workspace, wherever loom is started from.
  const resumed = await runLoom(['run', '--model', scripted, '--session', id, 'write kept.txt'], {
    home,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(readFileSync(join(workspace, 'kept.txt'), 'utf8'), 'hello');
  assert.equal(existsSync(join(process.cwd(), 'kept.txt')), false);

  const same = await runLoom(
    ['run', '--model', scripted, '--session', id, '--cwd', workspace, 'write same.txt'],
    { home },
  );
  assert.equal(same.code, 0, same.stderr);
  assert.equal(readFileSync(join(workspace, 'same.txt'), 'utf8'), 'hello');
});
