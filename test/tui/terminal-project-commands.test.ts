/**
 * Custom commands and skills in the interactive `bin/loom`, in a real pseudo-terminal, in a
 * repository prepared for Claude Code: `/fi` offers `/fix [issue-number]` in the completion menu,
 * Tab completes it, `/fix 42` sends the substituted body (the transcript names the command's
 * file), `/skills` lists the skills and `/help` the custom commands, a custom command named like
 * a built-in one among them as hidden. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { CLAUDE_COMMAND_AND_SKILL } from '../helpers/claude-repository.js';
import { writeTree } from '../helpers/file-tree.js';
import { sessions } from '../helpers/session-files.js';
import { KEYS, openLoom, quit, send } from './pty-screen.js';

type UserMessage = SessionEvent<'user/message'>['data'];

test('/fi completes to /fix; /fix 42 sends the substituted body; /skills and /help list what the repository brings', async (t) => {
  const folders = scriptedFolders({
    rules: [{ when: '^Fix issue #(\\d+)', reply: 'fixing number {{1}}' }],
    default: { reply: 'ok: {{prompt}}' },
  });
  writeTree(folders.workspace, {
    ...CLAUDE_COMMAND_AND_SKILL,
    '.claude/commands/help.md': 'A help the built-in /help hides.\n',
    '.claude/commands/git/log.md':
      '---\ndescription: Summarise recent commits\n---\nSummarise $1 commits.\n',
  });
  const screen = await openLoom(t, folders);
  screen.type('/fi');
  const menu = await screen.waitFor('› /fix [issue-number]');
  assert.match(menu, /› \/fix \[issue-number\] — Fix a GitHub issue \(\.claude\)/);
  screen.type('\t');
  await screen.waitFor(/> \/fix\s/);
  screen.type('42');
  await screen.waitFor('> /fix 42');
  screen.type(KEYS.enter);
  await screen.waitFor('fixing number 42');
  assert.match(
    screen.text(),
    /\/fix 42 · \.claude\/commands\/fix\.md · tools Read, Skill, Bash\(git status:\*\)/,
  );

  await send(screen, '/skills');
  await screen.waitFor(
    /release — How this project cuts a release[\s\S]*\(\.claude\/skills\/release\/SKILL\.md\)/,
  );
  await send(screen, '/help');
  const help = await screen.waitFor('is hidden by the built-in /help');
  assert.match(help, /\/git:log — Summarise recent commits \(\.claude\)/);
  assert.match(
    help,
    /\/help of \.claude\/commands\/help\.md is hidden by the built-in \/help; rename the file to use it/,
  );
  await quit(screen);

  const messages = sessions(folders.home).flatMap((session) =>
    session.events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as UserMessage).text),
  );
  assert.deepEqual(messages, ['Fix issue #42 following our release rules.']);
});
