/**
 * `/init` in the interactive `bin/loom`, in a real pseudo-terminal over the scripted model: it
 * runs the init turn, whose write_file writes AGENTS.md, and says so; a second `/init` is refused
 * naming `/init --force`; a session started with `/new` then carries the file in its prompt.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { requestPrompts, sessions } from '../helpers/session-files.js';
import { openLoom, quit, send } from './pty-screen.js';

test('/init writes AGENTS.md through the agent, refuses a second time, and /new reads it', async (t) => {
  const content = '# Agents\nTest with tui-marker-8812.\n';
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^Write an AGENTS\\.md',
        [{ name: 'write_file', arguments: { path: 'AGENTS.md', content } }],
        'init turn done',
      ),
    ],
    default: { reply: 'plain answer' },
  });
  const screen = await openLoom(t, folders, 200);
  await send(screen, '/init');
  await screen.waitFor('wrote AGENTS.md; sessions read it as they start (/new starts one)');
  assert.match(screen.text(), /init turn done/);
  assert.equal(readFileSync(join(folders.workspace, 'AGENTS.md'), 'utf8'), content);

  await send(screen, '/init');
  await screen.waitFor(
    `${join(folders.workspace, 'AGENTS.md')} already exists; /init --force replaces it`,
  );
  await send(screen, '/new');
  await screen.waitFor(/new session \S+/);
  await send(screen, 'hello');
  await screen.waitFor('plain answer');
  await quit(screen);

  const folder = join(folders.home, 'sessions');
  const said = (text: RegExp) =>
    sessions(folders.home).find(({ events }) =>
      events.some(
        (event) =>
          event.type === 'user/message' && text.test((event.data as { text: string }).text),
      ),
    );
  const systemOf = (session: ReturnType<typeof said>) =>
    requestPrompts(session?.events ?? [], folder)[0]?.system ?? '';
  assert.doesNotMatch(
    systemOf(said(/^Write an AGENTS\.md/)),
    /tui-marker-8812/,
    'the first session started before the file was there',
  );
  assert.match(systemOf(said(/^hello$/)), /tui-marker-8812/);
});
