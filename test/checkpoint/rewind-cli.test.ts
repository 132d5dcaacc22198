/**
 * Checkpoints and rewind through bin/loom with the scripted model: two turns of write_file,
 * edit_file and bash, then `loom sessions diff` and `loom rewind` back to each turn.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runLoom, runScripted, scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';

test('files and conversation rewind to the state each turn began with', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'one',
        [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } },
          bashCall('echo b > b.txt'),
        ],
        'done',
      ),
      callsThenReply(
        'two',
        [
          { name: 'edit_file', arguments: { path: 'a.txt', old_string: 'one', new_string: 'two' } },
          bashCall("rm b.txt && printf '\\000\\001' > bin.dat"),
        ],
        'done',
      ),
    ],
  });
  assert.equal((await runScripted(folders, 'one')).code, 0);
  const file = readdirSync(join(folders.home, 'sessions')).find((name) => name.endsWith('.jsonl'));
  assert.ok(file, 'the first run made a session');
  const id = file.slice(0, -'.jsonl'.length);
  assert.equal((await runScripted(folders, 'two', { args: ['--session', id] })).code, 0);
  const diff = await runLoom(['sessions', 'diff', id], { home: folders.home });
  assert.equal(diff.stdout, 'A a.txt\nA bin.dat\n');
  const files = await runLoom(['rewind', '--session', id, '--to', '2', '--files'], {
    home: folders.home,
  });
  assert.equal(files.code, 0, files.stderr);
  assert.equal(readFileSync(join(folders.workspace, 'a.txt'), 'utf8'), 'one\n');
  assert.equal(readFileSync(join(folders.workspace, 'b.txt'), 'utf8'), 'b\n');
  assert.equal(existsSync(join(folders.workspace, 'bin.dat')), false);
  const conversation = await runLoom(['rewind', '--session', id, '--to', '2', '--conversation'], {
    home: folders.home,
  });
  assert.equal(conversation.code, 0, conversation.stderr);
  assert.ok(existsSync(join(folders.home, 'sessions', `${conversation.stdout.trim()}.jsonl`)));
  assert.equal(readFileSync(join(folders.workspace, 'a.txt'), 'utf8'), 'one\n');
});

test('in a workspace that is LOOM_HOME itself the step runs without a checkpoint, said once on stderr', async () => {
  const made = scriptedFolders({
    rules: [
      callsThenReply(
        'write',
        [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } },
          { name: 'write_file', arguments: { path: 'b.txt', content: 'two\n' } },
        ],
        'done',
      ),
    ],
  });
  // The home is the workspace: a snapshot would hold the checkpoint store it writes into.
  const folders = { ...made, workspace: made.home };
  const run = await runScripted(folders, 'write');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(join(folders.home, 'a.txt'), 'utf8'), 'one\n');
  assert.equal(readFileSync(join(folders.home, 'b.txt'), 'utf8'), 'two\n');
  const notes = run.stderr.split('\n').filter((line) => line.includes('no checkpoint'));
  assert.equal(notes.length, 1, run.stderr);
  assert.match(notes[0] ?? '', /is LOOM_HOME itself.*set LOOM_HOME to a folder outside/);
  assert.equal(existsSync(join(folders.home, 'checkpoints')), false);
});
