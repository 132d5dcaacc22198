/**
 * OAuth for HTTP MCP servers through bin/loom, against a loopback authorization server written
 * for the test (oauth-fixture.ts): a server that answers 401 with OAuth metadata needs login
 * (`loom mcp list`, `loom run`); `loom mcp login` prints the URL, which the test opens as a
 * browser would; `loom run` calls the tool with the token, then again after the access token
 * expired (a refresh grant); a refresh that fails needs login again; `loom mcp logout` removes the
 * login. No token value is in any file under $LOOM_HOME but the 0600 login file, nor in any output.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
import { startHttpServer } from './mcp-fixtures.js';
import { approveInBrowser, type OAuthFixture, startOAuthFixture } from './oauth-fixture.js';

interface JsonEvent {
  type: string;
  data: Record<string, unknown>;
}

function events(stdout: string): JsonEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent);
}

function toolResults(stdout: string): Array<{ name: string; content: string; isError: boolean }> {
  return events(stdout)
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as { name: string; content: string; isError: boolean });
}

/** Every file under `folder`, recursively. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

let fixture: OAuthFixture;
before(async () => {
  fixture = await startOAuthFixture();
});
after(() => fixture.close());

function oauthFolders(): ScriptedFolders {
  const folders = scriptedFolders({
    rules: [
      callsThenReply('read the note', [{ name: 'mcp__notes__note', arguments: {} }], 'read it'),
      callsThenReply(
        'echo the token',
        [{ name: 'mcp__notes__echo_token', arguments: {} }],
        '{{lastToolResult}}',
      ),
      { when: 'hello', steps: [{ reply: 'hi' }] },
    ],
  });
  writeFileSync(
    join(folders.workspace, '.mcp.json'),
    JSON.stringify({ mcpServers: { notes: { type: 'http', url: fixture.mcpUrl } } }),
  );
  return folders;
}

async function listStatus(folders: ScriptedFolders): Promise<{ json: string; plain: string }> {
  const listed = await runLoom(['mcp', 'list', '--json', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(listed.code, 0, listed.stderr);
  const plain = await runLoom(['mcp', 'list', '--cwd', folders.workspace], { home: folders.home });
  assert.equal(plain.code, 0, plain.stderr);
  return { json: listed.stdout, plain: plain.stdout };
}

test('loom mcp login, a call with the token, a refresh after expiry, logout; tokens only in the 0600 file', async () => {
  const folders = oauthFolders();
  const outputs: string[] = [];
  const keep = <Result extends { stdout: string; stderr: string }>(result: Result): Result => {
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  const before = await listStatus(folders);
  const report = JSON.parse(before.json.trim()) as { status: Record<string, unknown> };
  assert.deepEqual(report.status, {
    state: 'failed',
    reason: 'needs-login',
    message: 'needs login: run `loom mcp login notes`',
  });
  assert.match(before.plain, /notes\s+http\s+project\s+needs login \(run loom mcp login notes\)/);

  const unauthenticated = keep(await runScripted(folders, 'hello', { json: true }));
  assert.equal(unauthenticated.code, 0, unauthenticated.stderr);
  assert.match(
    unauthenticated.stderr,
    /MCP server notes \(http, project\) failed to start: needs login: run `loom mcp login notes`; its tools are absent/,
  );
  const failed = events(unauthenticated.stdout).find((event) => event.type === 'mcp/server-failed');
  assert.equal(failed?.data.reason, 'needs-login');
  assert.deepEqual(fixture.grants, [], 'a run never starts a login');

  const login = startLoom(['mcp', 'login', 'notes', '--cwd', folders.workspace], {
    home: folders.home,
  });
  const url = await login.waitForLine(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  await login.waitForStderr(/open the URL above in a browser to log in to notes/);
  const page = await approveInBrowser(url);
  assert.equal(page.status, 200);
  assert.match(page.page, /You can close this tab/);
  const ended = await login.exited;
  keep({ stdout: login.stdout(), stderr: login.stderr() });
  assert.equal(ended.code, 0, login.stderr());
  assert.match(login.stdout(), /^logged in to notes: 2 tools$/m);
  assert.deepEqual(fixture.grants, ['authorization_code']);
  assert.equal(fixture.clients.length, 1, 'registered dynamically once');

  const first = keep(await runScripted(folders, 'read the note', { json: true }));
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(toolResults(first.stdout)[0], {
    ...toolResults(first.stdout)[0],
    content: 'the note behind the login',
    isError: false,
  });

  const echoed = keep(await runScripted(folders, 'echo the token', { json: true }));
  assert.equal(echoed.code, 0, echoed.stderr);
  assert.equal(toolResults(echoed.stdout)[0]?.content, 'your token is [redacted]');

  fixture.expireAccessTokens();
  const second = keep(await runScripted(folders, 'read the note', { json: true }));
  assert.equal(second.code, 0, second.stderr);
  assert.equal(toolResults(second.stdout)[0]?.content, 'the note behind the login');
  assert.deepEqual(fixture.grants, ['authorization_code', 'refresh_token']);
  assert.equal(fixture.toolCalls, 2, 'note was called twice');

  const authFolder = join(folders.home, 'mcp-auth');
  assert.equal(statSync(authFolder).mode & 0o777, 0o700);
  const tokenFiles = readdirSync(authFolder);
  assert.equal(tokenFiles.length, 1, `one login file: ${tokenFiles.join(', ')}`);
  const tokenFile = join(authFolder, tokenFiles[0] ?? '');
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
  const stored = readFileSync(tokenFile, 'utf8');
  assert.ok(stored.includes(fixture.issued.access.at(-1) ?? '?'), 'the newest token is stored');
  assert.ok(stored.includes(fixture.issued.refresh.at(-1) ?? '?'));
  assert.ok(!stored.includes('code_verifier') && !stored.includes('codeVerifier'));
  const secrets = [...fixture.issued.access, ...fixture.issued.refresh];
  for (const file of filesUnder(folders.home)) {
    if (file === tokenFile) continue;
    const text = readFileSync(file, 'utf8');
    for (const secret of secrets) assert.ok(!text.includes(secret), `${file} holds a token`);
  }
  for (const output of outputs) {
    for (const secret of secrets) assert.ok(!output.includes(secret), 'an output holds a token');
  }

  // A refresh that fails (the refresh token revoked): the server needs login again.
  fixture.expireAccessTokens();
  fixture.revokeRefreshTokens();
  const revoked = await listStatus(folders);
  assert.match(revoked.plain, /needs login \(run loom mcp login notes\)/);

  const logout = await runLoom(['mcp', 'logout', 'notes', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stdout, /logged out of notes/);
  assert.deepEqual(readdirSync(authFolder), []);
  assert.match((await listStatus(folders)).plain, /needs login \(run loom mcp login notes\)/);
});

test('loom mcp login names what is wrong: an unknown name, a stdio server, no OAuth metadata', async () => {
  const folders = scriptedFolders({ rules: [] });
  const withoutOAuth = await startHttpServer();
  after(() => withoutOAuth.stop());
  writeFileSync(
    join(folders.workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        notes: { type: 'http', url: fixture.mcpUrl },
        plain: { type: 'http', url: withoutOAuth.url },
        local: { command: process.execPath, args: ['-e', ''] },
      },
    }),
  );
  const run = (name: string) =>
    runLoom(['mcp', 'login', name, '--cwd', folders.workspace], { home: folders.home });
  const unknown = await run('nope');
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /no MCP server is named nope: the HTTP servers declared here: notes, plain/,
  );
  const stdio = await run('local');
  assert.equal(stdio.code, 1);
  assert.match(stdio.stderr, /local is a stdio server .*only HTTP servers log in with OAuth/);
  const plain = await run('plain');
  assert.equal(plain.code, 1);
  assert.match(
    plain.stderr,
    /plain \(http:\/\/127\.0\.0\.1:\d+\/mcp\) publishes no OAuth metadata/,
  );
  const logout = await runLoom(['mcp', 'logout', 'nope', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(logout.code, 1);
  assert.match(logout.stderr, /no MCP server is named nope/);
});

test('Ctrl-C during loom mcp login cancels it cleanly: exit 130, no verifier and no token stored', async () => {
  const folders = oauthFolders();
  const grants = fixture.grants.length;
  const login = startLoom(['mcp', 'login', 'notes', '--cwd', folders.workspace], {
    home: folders.home,
  });
  await login.waitForLine(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  await login.waitForStderr(/Ctrl-C cancels/);
  login.child.kill('SIGINT');
  const ended = await login.exited;
  assert.equal(ended.code, 130, login.stderr());
  assert.match(login.stderr(), /the login to notes was cancelled; no tokens were stored/);
  assert.equal(fixture.grants.length, grants, 'no code was exchanged');
  const authFolder = join(folders.home, 'mcp-auth');
  for (const file of readdirSync(authFolder)) {
    const stored = JSON.parse(readFileSync(join(authFolder, file), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(stored.codeVerifier, undefined);
    assert.equal(stored.tokens, undefined);
  }
});
