/**
 * Issue 34's acceptance of checkpoints through bin/loom: a committed user repository with an
 * ignored file; three turns of write_file, edit_file and bash (new files, mv, rm, a binary file of
 * every byte value rewritten, chmod +x, a nested new folder, an overwrite). Each turn is rewound
 * with `--files` to the exact tree it began with (every path, its bytes, its exec bit); rewinding
 * the conversation alone leaves the files as they are; `loom sessions diff` lists exactly the
 * paths changed; the ignored file is never restored, deleted or snapshotted; the user's `.git`
 * stays byte for byte as it was; the restore's `before` tree undoes it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShadowRepository } from '../../src/checkpoint/shadow-repository.js';
import { runLoom, runScripted, scriptedFolders } from '../cli/loom-process.js';
import { gitRepository, isolatedGitEnvironment } from '../helpers/git-repository.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { allBytesPrintf, folderState } from './workspace-state.js';

const userFiles = {
  'README.md': 'hello\n',
  'old.txt': 'to be moved\n',
  'notes.txt': 'alpha\nbeta\n',
  'gone.txt': 'to be removed\n',
  'run.sh': '#!/bin/sh\necho hi\n',
  '.gitignore': 'secret.log\n',
};

const model = {
  rules: [
    callsThenReply(
      '^one$',
      [
        { name: 'write_file', arguments: { path: 'new.txt', content: 'new in one\n' } },
        bashCall(`${allBytesPrintf()} > bin.dat && mv old.txt moved.txt && echo v2 > secret.log`),
      ],
      'done one',
    ),
    callsThenReply(
      '^two$',
      [
        {
          name: 'edit_file',
          arguments: { path: 'notes.txt', old_string: 'alpha', new_string: 'ALPHA' },
        },
        bashCall(
          `rm gone.txt && ${allBytesPrintf(true)} > bin.dat && chmod +x run.sh && echo v3 > secret.log`,
        ),
      ],
      'done two',
    ),
    callsThenReply(
      '^three$',
      [
        bashCall('mkdir -p deep/er && echo nested > deep/er/file.txt && echo v4 > secret.log'),
        { name: 'write_file', arguments: { path: 'new.txt', content: 'new in three\n' } },
      ],
      'done three',
    ),
  ],
};

/** The user's repository as git sees it, without letting `git status` write its index. */
function userStatus(folder: string): string {
  return execFileSync('git', ['status', '--porcelain=v2', '--branch', '--ignored'], {
    cwd: folder,
    env: { ...isolatedGitEnvironment(), GIT_OPTIONAL_LOCKS: '0' },
    encoding: 'utf8',
  });
}

/** The workspace without `.git` and the ignored file, which checkpoints never touch. */
const tracked = (workspace: string) => folderState(workspace, ['.git', 'secret.log']);

test('three turns of edits are rewound byte for byte to each turn, and nothing else is touched', async () => {
  const repository = gitRepository(userFiles);
  const workspace = repository.folder;
  const folders = { ...scriptedFolders(model), workspace };
  execFileSync('sh', ['-c', 'echo v1 > secret.log'], { cwd: workspace });
  const userGit = folderState(join(workspace, '.git'), []);
  const status = userStatus(workspace);

  const began: Array<ReturnType<typeof tracked>> = [];
  began.push(tracked(workspace));
  const first = await runScripted(folders, 'one');
  assert.equal(first.code, 0, first.stderr);
  const file = readdirSync(join(folders.home, 'sessions')).find((name) => name.endsWith('.jsonl'));
  assert.ok(file, 'the first run made a session');
  const id = file.slice(0, -'.jsonl'.length);
  for (const prompt of ['two', 'three']) {
    began.push(tracked(workspace));
    const run = await runScripted(folders, prompt, { args: ['--session', id] });
    assert.equal(run.code, 0, run.stderr);
  }
  const after = tracked(workspace);
  assert.equal(after['bin.dat']?.kind, 'file');
  assert.equal(after['run.sh']?.kind === 'file' && after['run.sh'].executable, true);

  const diff = await runLoom(['sessions', 'diff', id], { home: folders.home });
  assert.equal(diff.code, 0, diff.stderr);
  assert.equal(
    diff.stdout,
    'A bin.dat\nA deep/er/file.txt\nD gone.txt\nA moved.txt\nA new.txt\nM notes.txt\nD old.txt\nM run.sh\n',
  );

  const conversation = await runLoom(['rewind', '--session', id, '--to', '1', '--conversation'], {
    home: folders.home,
  });
  assert.equal(conversation.code, 0, conversation.stderr);
  assert.match(conversation.stdout, /^\S+\n$/);
  assert.deepEqual(tracked(workspace), after, 'rewinding the conversation alone moves no file');

  for (const turn of [3, 2, 1]) {
    const rewind = await runLoom(['rewind', '--session', id, '--to', String(turn), '--files'], {
      home: folders.home,
    });
    assert.equal(rewind.code, 0, rewind.stderr);
    assert.deepEqual(tracked(workspace), began[turn - 1], `the workspace as turn ${turn} began`);
    assert.equal(readFileSync(join(workspace, 'secret.log'), 'utf8'), 'v4\n');
  }
  assert.deepEqual(
    folderState(join(workspace, '.git'), []),
    userGit,
    "the user's .git, byte for byte",
  );
  assert.equal(userStatus(workspace), status);

  const shadow = new ShadowRepository(folders.home, workspace);
  const events = readFileSync(join(folders.home, 'sessions', file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data?: Record<string, string> });
  const trees = events.filter((event) => event.type === 'checkpoint/create');
  assert.ok(trees.length >= 3, 'a checkpoint in each turn');
  for (const event of trees) {
    const paths = execFileSync(
      'git',
      ['--git-dir', shadow.place.gitDir, 'ls-tree', '-r', '--name-only', String(event.data?.tree)],
      { env: isolatedGitEnvironment(), encoding: 'utf8' },
    ).split('\n');
    assert.ok(!paths.includes('secret.log'), 'the ignored file is in no checkpoint');
    assert.ok(!paths.some((path) => path === '.git' || path.startsWith('.git/')));
  }

  // The first restore's `before` is the workspace after turn 3: restoring it undoes the rewinds.
  const restores = events.filter(
    (event) => event.type === 'checkpoint/restore' && event.data?.files,
  );
  const undo = restores[0]?.data?.before;
  assert.ok(undo, 'the restore logged the tree it replaced');
  await shadow.restore(undo);
  assert.deepEqual(tracked(workspace), after, 'the rewinds undone');
  assert.deepEqual(folderState(join(workspace, '.git'), []), userGit);
});
