import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
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

test('loom run --session refuses another workspace (by --cwd or by the current folder), naming both folders', async () => {
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
  assert.equal(
    moved.code,
    1,
    'a session of another workspace is a failure like any other of loom run',
  );
  assert.equal(moved.stdout, '');
  assert.ok(
    moved.stderr.includes(
      `session ${id} belongs to the workspace ${workspace}, not to ${other} (--cwd)`,
    ),
    moved.stderr,
  );
  assert.ok(moved.stderr.includes(`pass --cwd ${workspace}`), moved.stderr);
  assert.deepEqual(readFileSync(sessionFile), before, 'the session is untouched');
  assert.deepEqual(readdirSync(other), [], 'nothing ran in the other folder');

  // Without --cwd, the folder loom runs in is the workspace: another one is refused too.
  const elsewhere = await runLoom(['run', '--model', scripted, '--session', id, 'write kept.txt'], {
    home,
    cwd: other,
  });
  assert.equal(elsewhere.code, 1);
  assert.ok(
    elsewhere.stderr.includes(
      `session ${id} belongs to the workspace ${workspace}, not to ${other} (the current folder)`,
    ),
    elsewhere.stderr,
  );
  assert.ok(elsewhere.stderr.includes(`cd ${workspace}`), elsewhere.stderr);
  assert.deepEqual(readFileSync(sessionFile), before, 'the session is untouched');
  assert.deepEqual(readdirSync(other), []);

  // From its own folder, or with --cwd naming it (also through a symlink), it goes on.
  const resumed = await runLoom(['run', '--model', scripted, '--session', id, 'write kept.txt'], {
    home,
    cwd: workspace,
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

  const link = join(temporaryFolder('loom-links-'), 'linked');
  symlinkSync(workspace, link);
  const linked = await runLoom(
    ['run', '--model', scripted, '--session', id, '--cwd', link, 'write linked.txt'],
    { home },
  );
  assert.equal(linked.code, 0, linked.stderr);
  assert.equal(readFileSync(join(workspace, 'linked.txt'), 'utf8'), 'hello');
});
