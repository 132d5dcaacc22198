/**
 * OAuth through bin/loom beyond streamable HTTP, against the loopback authorization server of
 * oauth-fixture.ts: an HTTP+SSE server (`type: "sse"`) needs login, `loom mcp login` logs in,
 * `loom run` calls its tool with the token and again after the access token expired (a refresh
 * grant); `loom mcp logout` revokes the tokens at the advertised `revocation_endpoint` (RFC 7009)
 * before removing the login, and a revocation that fails still removes it, saying so.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  runLoom,
  runScripted,
  type ScriptedFolders,
  scriptedFolders,
  startLoom,
} from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines } from '../helpers/session-files.js';
import { approveInBrowser, type OAuthFixture, startOAuthFixture } from './oauth-fixture.js';

let fixture: OAuthFixture;
before(async () => {
  fixture = await startOAuthFixture();
});
after(() => fixture.close());

function foldersFor(server: { type: 'http' | 'sse'; url: string }): ScriptedFolders {
  const folders = scriptedFolders({
    rules: [
      callsThenReply('read the note', [{ name: 'mcp__notes__note', arguments: {} }], 'read it'),
    ],
  });
  writeFileSync(
    join(folders.workspace, '.mcp.json'),
    JSON.stringify({ mcpServers: { notes: server } }),
  );
  return folders;
}

async function login(folders: ScriptedFolders): Promise<void> {
  const running = startLoom(['mcp', 'login', 'notes', '--cwd', folders.workspace], {
    home: folders.home,
  });
  const url = await running.waitForLine(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  assert.equal((await approveInBrowser(url)).status, 200);
  const ended = await running.exited;
  assert.equal(ended.code, 0, running.stderr());
  assert.match(running.stdout(), /^logged in to notes: 2 tools$/m);
}

async function readNote(folders: ScriptedFolders): Promise<string | undefined> {
  const run = await runScripted(folders, 'read the note', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const result = ndjsonLines<{ type: string; data: { content?: string } }>(run.stdout).find(
    (event) => event.type === 'tool/result',
  );
  return result?.data.content;
}

function logout(folders: ScriptedFolders) {
  return runLoom(['mcp', 'logout', 'notes', '--cwd', folders.workspace], { home: folders.home });
}

test('an HTTP+SSE server: needs login, logs in, calls with the token and after a refresh', async () => {
  const folders = foldersFor({ type: 'sse', url: fixture.sseUrl });
  const listed = await runLoom(['mcp', 'list', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /notes\s+sse\s+project\s+needs login \(run loom mcp login notes\)/);

  const grants = fixture.grants.length;
  await login(folders);
  assert.equal(await readNote(folders), 'the note behind the login');
  fixture.expireAccessTokens();
  assert.equal(await readNote(folders), 'the note behind the login');
  assert.deepEqual(fixture.grants.slice(grants), ['authorization_code', 'refresh_token']);

  const [file] = readdirSync(join(folders.home, 'mcp-auth'));
  const stored = readFileSync(join(folders.home, 'mcp-auth', file ?? ''), 'utf8');
  assert.ok(stored.includes(`"url": "${fixture.sseUrl}"`));
  assert.ok(stored.includes(fixture.issued.access.at(-1) ?? '?'));
});

test('loom mcp logout revokes the refresh and the access token (RFC 7009), then removes the login', async () => {
  const folders = foldersFor({ type: 'http', url: fixture.mcpUrl });
  await login(folders);
  const authFolder = join(folders.home, 'mcp-auth');
  const [file] = readdirSync(authFolder);
  const stored = JSON.parse(readFileSync(join(authFolder, file ?? ''), 'utf8')) as {
    tokens: { access_token: string; refresh_token: string };
    clientInformation: { client_id: string };
  };
  const from = fixture.revoked.length;
  const out = await logout(folders);
  assert.equal(out.code, 0, out.stderr);
  assert.match(
    out.stdout,
    /^logged out of notes: its tokens are revoked and its stored login is removed$/m,
  );
  assert.deepEqual(fixture.revoked.slice(from), [
    {
      token: stored.tokens.refresh_token,
      hint: 'refresh_token',
      clientId: stored.clientInformation.client_id,
    },
    {
      token: stored.tokens.access_token,
      hint: 'access_token',
      clientId: stored.clientInformation.client_id,
    },
  ]);
  assert.deepEqual(readdirSync(authFolder), []);
  for (const output of [out.stdout, out.stderr]) {
    assert.ok(
      !output.includes(stored.tokens.access_token) && !output.includes(stored.tokens.refresh_token),
    );
  }
});

test('a revocation that fails still removes the login, and says so', async () => {
  const folders = foldersFor({ type: 'http', url: fixture.mcpUrl });
  await login(folders);
  const authFolder = join(folders.home, 'mcp-auth');
  const [file] = readdirSync(authFolder);
  fixture.failRevocation = true;
  try {
    const out = await logout(folders);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^logged out of notes: its stored login is removed$/m);
    assert.match(
      out.stderr,
      /the tokens of notes could not be revoked: http:\/\/127\.0\.0\.1:\d+\/revoke answered 503 \(temporarily_unavailable\); the stored login is removed anyway, and the tokens stay valid until they expire/,
    );
  } finally {
    fixture.failRevocation = false;
  }
  assert.equal(existsSync(join(authFolder, file ?? '')), false);
});
