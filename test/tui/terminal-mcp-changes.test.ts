/**
 * MCP servers that change what they offer, in the interactive `bin/loom` in a real
 * pseudo-terminal: a prompt and a resource the changing fixture server adds mid-session
 * (`notifications/prompts/list_changed`, `notifications/resources/list_changed`) are completed
 * at once (`/mcp__change__br`, `@change:fixture://se`), and its template's variable completes
 * from the server (`@change:fixture://notes/t`); the everything server's completable
 * prompt offers each argument's values from `completion/complete`, the second narrowed by the
 * first. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { sessions } from '../helpers/session-files.js';
import { CHANGING_SERVER, EVERYTHING_SERVER } from '../mcp/mcp-fixtures.js';
import { KEYS, openLoom, quit, send } from './pty-screen.js';

type UserMessage = SessionEvent<'user/message'>['data'];

test('terminal: a prompt and a resource a server adds mid-session are completed at once', async (t) => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'grow',
        [
          { name: 'mcp__change__add-prompt', arguments: { name: 'brief' } },
          { name: 'mcp__change__add-resource', arguments: { name: 'second' } },
        ],
        'grown',
      ),
    ],
    default: { reply: 'ok: {{prompt}}' },
  });
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    change: { command: ${node}, args: ${JSON.stringify([CHANGING_SERVER, join(folders.home, 'wire.txt')])} }\n`,
  );
  const screen = await openLoom(t, folders);
  screen.type('/mcp__change__');
  await screen.waitFor('› /mcp__change__first');
  assert.doesNotMatch(screen.text(), /mcp__change__brief/);
  screen.type(KEYS.ctrlC);
  await screen.waitFor((text) => !text.includes('› /mcp__change__first'));

  await send(screen, 'grow');
  await screen.waitFor('grown');
  screen.type('/mcp__change__br');
  const menu = await screen.waitFor('› /mcp__change__brief topic');
  assert.match(menu, /› \/mcp__change__brief topic — The added brief \(MCP server change\)/);
  screen.type('\t');
  await screen.waitFor(/> \/mcp__change__brief\s/);
  screen.type('tides');
  screen.type(KEYS.enter);
  await screen.waitFor('ok: brief about tides');

  screen.type('read @change:fixture://se');
  await screen.waitFor('› @change:fixture://second — second');
  screen.type('\t');
  await screen.waitFor(/> read @change:fixture:\/\/second\s/);
  screen.type(KEYS.enter);
  await screen.waitFor('the resource second');

  // A template's variable completes from the server (completion/complete of ref/resource).
  screen.type('read @change:fixture://notes/t');
  await screen.waitFor('› @change:fixture://notes/tides — topic (MCP server change)');
  assert.match(screen.text(), /^\s*@change:fixture:\/\/notes\/tangents — topic/m);
  assert.doesNotMatch(screen.text(), /notes\/winds/);
  screen.type(KEYS.down);
  screen.type('\t');
  await screen.waitFor(/> read @change:fixture:\/\/notes\/tangents\s/);
  screen.type(KEYS.enter);
  await screen.waitFor('notes about tangents');
  await quit(screen);

  const [session] = sessions(folders.home);
  const types = session?.events.map((event) => event.type) ?? [];
  assert.ok(types.includes('mcp/prompts-changed') && types.includes('mcp/resources-changed'));
});

test("terminal: a prompt's arguments complete from its server (completion/complete)", async (t) => {
  const folders = scriptedFolders({ default: { reply: 'ok: {{prompt}}' } });
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    every: { command: ${node}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }\n`,
  );
  const screen = await openLoom(t, folders);
  screen.type('/mcp__every__completable-prompt ');
  const offered = await screen.waitFor('› Engineering — department (MCP server every)');
  for (const department of ['Sales', 'Marketing', 'Support']) {
    assert.match(offered, new RegExp(`^\\s*${department} — department`, 'm'));
  }
  screen.type('Sa');
  await screen.waitFor((text) => text.includes('› Sales') && !text.includes('Engineering —'));
  screen.type('\t');
  await screen.waitFor(/> \/mcp__every__completable-prompt Sales\s/);
  // The second argument's values depend on the first, sent as the request's context.
  await screen.waitFor('› David — name (MCP server every)');
  assert.match(screen.text(), /^\s*Eve — name/m);
  screen.type('E');
  await screen.waitFor((text) => text.includes('› Eve') && !text.includes('David —'));
  screen.type('\t');
  await screen.waitFor(/> \/mcp__every__completable-prompt Sales Eve\s/);
  screen.type(KEYS.enter);
  await screen.waitFor('ok: Please promote Eve to the head of the Sales team.');
  await quit(screen);

  const messages = sessions(folders.home).flatMap((session) =>
    session.events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as UserMessage).text),
  );
  assert.deepEqual(messages, ['Please promote Eve to the head of the Sales team.']);
});
