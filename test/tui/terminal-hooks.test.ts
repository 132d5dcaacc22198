/**
 * Hooks in the interactive `bin/loom`, in a real pseudo-terminal: a repository's
 * `.claude/settings.json` PreToolUse hook refuses `rm`, and the transcript shows its run as one
 * dim line beside the denied call, while the file stays.
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { writeTree } from '../helpers/file-tree.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { openLoom, quit, send } from './pty-screen.js';

test('a hook’s run shows as one dim line in the transcript', async (t) => {
  const folders = scriptedFolders({
    rules: [callsThenReply('clean up', [bashCall('rm x.txt')], 'the hook said no')],
  });
  writeTree(folders.workspace, {
    'x.txt': 'keep me\n',
    '.claude/hooks/no-rm.sh':
      "#!/bin/sh\ngrep -q '\"command\":\"rm ' && { echo 'rm is not allowed here' >&2; exit 2; }\nexit 0\n",
    '.claude/settings.json': JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: '.claude/hooks/no-rm.sh' }],
          },
        ],
      },
    }),
  });
  chmodSync(join(folders.workspace, '.claude/hooks/no-rm.sh'), 0o755);
  const screen = await openLoom(t, folders, 160);
  await send(screen, 'clean up');
  await screen.waitFor('the hook said no');
  const text = screen.text();
  assert.match(
    text,
    /hook PreToolUse bash: \.claude\/hooks\/no-rm\.sh → blocked: rm is not allowed here \(\d+ ms\)/,
  );
  assert.equal(screen.styleOf('hook PreToolUse bash')?.dim, true);
  assert.equal(readFileSync(join(folders.workspace, 'x.txt'), 'utf8'), 'keep me\n');
  await quit(screen);
});
