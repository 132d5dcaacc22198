/**
 * `/agents` in a real pseudo-terminal: beside the running children of the session it lists the
 * agent types a `subagent {agent_type}` call can start (the built-in ones and the workspace's
 * `.claude/agents/` file) and a malformed agent file with its problem.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { writeTree } from '../helpers/file-tree.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { KEYS, send, startScreen } from './pty-screen.js';

test('/agents lists the agent types beside a running reviewer child, and a broken file with its problem', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^start a review$',
        [
          subagentCall('a review', 'review slowly', {
            agent_type: 'reviewer',
            run_in_background: true,
          }),
        ],
        'review started',
      ),
      { when: '^review slowly$', hang: true },
    ],
    default: { reply: 'noted' },
  });
  writeTree(folders.workspace, {
    '.claude/agents/reviewer.md':
      '---\nname: reviewer\ndescription: Reviews the change\ntools: Read, Grep\n---\nYou are Quill.\n',
    '.loom/agents/broken.md': '---\nname: broken\n---\nno description\n',
  });
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
    rows: 40,
  });
  try {
    await screen.waitFor('ask loom');
    await send(screen, 'start a review');
    await screen.waitFor('review started');
    await screen.waitFor(/ask loom, \/ for commands/);
    await send(screen, '/agents');
    await screen.waitFor(/◌ running a review \S+ · \d+ tokens/);
    await screen.waitFor(/Agent types · subagent \{agent_type\} starts one/);
    await screen.waitFor(/ {2}reviewer +claude +Reviews the change/);
    await screen.waitFor(/ {2}Explore +builtin +Read-only and quick/);
    await screen.waitFor(/ {2}general-purpose +builtin +The default/);
    await screen.waitFor(/ {2}broken +error: \S*broken\.md: description: missing/);
    screen.type(KEYS.escape);
    // Until the view is gone a key typed now could join the Escape as one sequence.
    await screen.waitFor((text) => !text.includes('Agent types ·'));
    screen.type(KEYS.ctrlD);
    assert.equal((await screen.exited).exitCode, 0);
  } finally {
    screen.kill();
  }
});
