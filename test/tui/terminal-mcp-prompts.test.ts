/**
 * MCP prompts and resources in the interactive `bin/loom`, in a real pseudo-terminal, with the
 * everything server: `/mcp__every__ar` offers the prompt with its arguments in the completion
 * menu, Tab completes it, `/mcp__every__args-prompt Lyon` sends the prompt's text (the transcript names the prompt and its arguments); `/help` lists
 * the prompts; `@every:demo://resource/dynamic/te` offers the template, marked; a message with
 * `@every:URI` gets the resource's text attached. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { sessions } from '../helpers/session-files.js';
import { EVERYTHING_SERVER } from '../mcp/mcp-fixtures.js';
import { KEYS, openLoom, quit, send } from './pty-screen.js';

type UserMessage = SessionEvent<'user/message'>['data'];

test('terminal: server prompts are slash commands with completion; @server:uri completes and attaches the resource', async (t) => {
  const folders = scriptedFolders({ default: { reply: 'ok: {{prompt}}' } });
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    every: { command: ${node}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }\n`,
  );
  const screen = await openLoom(t, folders);
  screen.type('/mcp__every__ar');
  const menu = await screen.waitFor('› /mcp__every__args-prompt city [state]');
  assert.match(menu, /› \/mcp__every__args-prompt city \[state\] — A prompt with two arguments/);
  screen.type('\t');
  await screen.waitFor(/> \/mcp__every__args-prompt\s/);
  screen.type('Lyon');
  screen.type(KEYS.enter);
  await screen.waitFor("ok: What's weather in Lyon?");
  assert.match(screen.text(), /prompt args-prompt of MCP server every · city=Lyon/);

  await send(screen, '/help');
  await screen.waitFor(/prompts of the MCP servers:[\s\S]*\/mcp__every__simple-prompt — /);

  screen.type('read @every:demo://resource/dynamic/te');
  await screen.waitFor('@every:demo://resource/dynamic/text/{resourceId}');
  assert.match(
    screen.text(),
    /› @every:demo:\/\/resource\/dynamic\/text\/\{resourceId\} — Dynamic Text Resource \(template\)/,
  );
  screen.type('\t');
  await screen.waitFor(/> read @every:demo:\/\/resource\/dynamic\/text\/\{resourceId\}/);
  // Fill in the template: the placeholder's 12 characters go, 3 comes.
  screen.type(KEYS.backspace.repeat('{resourceId}'.length));
  screen.type('3');
  screen.type(KEYS.enter);
  await screen.waitFor('Resource 3: This is a plaintext resource');
  await quit(screen);

  const messages = sessions(folders.home).flatMap((session) =>
    session.events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as UserMessage).text),
  );
  assert.equal(messages[0], "What's weather in Lyon?");
  assert.match(
    messages[1] ?? '',
    /^read @every:demo:\/\/resource\/dynamic\/text\/3\n\nAttached resource demo:\/\/resource\/dynamic\/text\/3 \(MCP server every\):\n\[resource demo:\/\/resource\/dynamic\/text\/3: text\/plain, \d+ bytes\]\nResource 3: This is a plaintext resource/,
  );
});
