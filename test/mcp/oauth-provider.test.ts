/**
 * The OAuth pieces in process, against the loopback fixture: an access token past its expiry is
 * refreshed before it is sent (no 401 needed), a refresh the server refuses needs login and drops
 * the tokens, a 401 without OAuth metadata says so, the loopback redirect checks its state, the
 * login file never follows a symbolic link and is keyed by name and url.
 */
import assert from 'node:assert/strict';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { McpServerDeclaration } from '../../src/mcp/contract.js';
import { startServers } from '../../src/mcp/install.js';
import { loginToServer } from '../../src/mcp/login-flow.js';
import { openLoopbackRedirect } from '../../src/mcp/loopback-redirect.js';
import { LoomOAuthProvider, NeedsLoginError } from '../../src/mcp/oauth-provider.js';
import { clientSettings } from '../../src/mcp/server-list.js';
import { loginFileName, TokenStore } from '../../src/mcp/token-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startHttpServer } from './mcp-fixtures.js';
import { approveInBrowser, type OAuthFixture, startOAuthFixture } from './oauth-fixture.js';

let fixture: OAuthFixture;
before(async () => {
  fixture = await startOAuthFixture();
});
after(() => fixture.close());

function declaration(url: string): Extract<McpServerDeclaration, { transport: 'http' | 'sse' }> {
  return {
    transport: 'http',
    name: 'notes',
    source: 'config',
    origin: 'config.yaml',
    url,
    headers: {},
    startTimeoutMs: 10_000,
  };
}

async function logIn(home: string): Promise<void> {
  let approved: Promise<unknown> = Promise.resolve();
  await loginToServer({
    declaration: declaration(fixture.mcpUrl),
    environment: {},
    home,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    showAuthorizationUrl(url) {
      approved = approveInBrowser(url);
    },
  });
  await approved;
}

test('an access token past its expiry is refreshed before it is sent, and the new one stored', async () => {
  const home = temporaryFolder();
  await logIn(home);
  const store = new TokenStore(home, 'notes', fixture.mcpUrl);
  const loggedIn = store.read();
  assert.equal(loggedIn?.tokens?.access_token, fixture.issued.access.at(-1));
  assert.ok(loggedIn?.expiresAt !== undefined);
  const grantsBefore = fixture.grants.length;

  const fresh = new LoomOAuthProvider(store, { kind: 'connect' }, () => Date.now());
  assert.equal((await fresh.tokens())?.access_token, loggedIn.tokens?.access_token);
  assert.equal(fixture.grants.length, grantsBefore, 'a fresh token is sent as it is');

  const later = (loggedIn.expiresAt ?? 0) + 1;
  const expired = new LoomOAuthProvider(store, { kind: 'connect' }, () => later);
  const refreshed = await expired.tokens();
  assert.deepEqual(fixture.grants.slice(grantsBefore), ['refresh_token']);
  assert.equal(refreshed?.access_token, fixture.issued.access.at(-1));
  assert.notEqual(refreshed?.access_token, loggedIn.tokens?.access_token);
  assert.equal(store.read()?.tokens?.refresh_token, fixture.issued.refresh.at(-1));
  assert.equal(store.read()?.expiresAt, later + 3600 * 1000);

  const muchLater = later + 7200 * 1000;
  const together = new LoomOAuthProvider(store, { kind: 'connect' }, () => muchLater);
  const grantsNow = fixture.grants.length;
  const [one, two] = await Promise.all([together.tokens(), together.tokens()]);
  assert.deepEqual(fixture.grants.slice(grantsNow), ['refresh_token'], 'one refresh for both');
  assert.equal(one?.access_token, two?.access_token);

  // A request whose token failed after another one refreshed keeps the refreshed tokens.
  const stale = new LoomOAuthProvider(store, { kind: 'connect' }, () => muchLater);
  await stale.tokens();
  const other = new LoomOAuthProvider(store, { kind: 'connect' }, () => Number.MAX_SAFE_INTEGER);
  const replaced = await other.tokens();
  stale.invalidateCredentials('tokens');
  assert.equal(store.read()?.tokens?.access_token, replaced?.access_token);
});

test('a refresh the authorization server refuses needs login and drops the tokens', async () => {
  const home = temporaryFolder();
  await logIn(home);
  const store = new TokenStore(home, 'notes', fixture.mcpUrl);
  fixture.revokeRefreshTokens();
  const expired = new LoomOAuthProvider(store, { kind: 'connect' }, () => Number.MAX_SAFE_INTEGER);
  await assert.rejects(expired.tokens(), NeedsLoginError);
  assert.equal(expired.needsLogin, true);
  assert.equal(store.read()?.tokens, undefined);
  assert.ok(store.read()?.clientInformation, 'the registration stays for the next login');
});

test('a server answering 401 without OAuth metadata fails with a message saying so', async () => {
  const server = await startHttpServer('a-token-nobody-sends');
  const home = temporaryFolder();
  const previous = process.env.LOOM_HOME;
  process.env.LOOM_HOME = home;
  try {
    const [result] = await startServers([declaration(server.url)], {
      environment: {},
      outputLimit: 1000,
      settings: clientSettings({}, home),
    });
    await result?.connection.close();
    const status = result?.report.status;
    assert.equal(status?.state, 'failed');
    assert.ok(status?.state === 'failed');
    assert.equal(status.reason, 'error');
    assert.match(
      status.message,
      /answered 401 Unauthorized and publishes no OAuth authorization server metadata/,
    );
  } finally {
    if (previous === undefined) delete process.env.LOOM_HOME;
    else process.env.LOOM_HOME = previous;
    await server.stop();
  }
});

test('the loopback redirect refuses another state, waits on, and hands back the code', async () => {
  const redirect = await openLoopbackRedirect('notes', 'the-state');
  try {
    const waiting = redirect.code({ timeoutMs: 60_000, signal: new AbortController().signal });
    const wrong = await fetch(`${redirect.redirectUrl}?code=stolen&state=other`);
    assert.equal(wrong.status, 400);
    const right = await fetch(`${redirect.redirectUrl}?code=the-code&state=the-state`);
    assert.equal(right.status, 200);
    assert.match(await right.text(), /You can close this tab/);
    assert.equal(await waiting, 'the-code');
  } finally {
    await redirect.close();
  }
});

test('the loopback redirect ends on an error redirect, on cancel and at its time limit', async () => {
  const refused = await openLoopbackRedirect('notes', 's');
  const waiting = assert.rejects(
    refused.code({ timeoutMs: 60_000, signal: new AbortController().signal }),
    /refused the login to notes: access_denied/,
  );
  await fetch(`${refused.redirectUrl}?error=access_denied&state=s`);
  await waiting;
  await refused.close();

  const cancelled = await openLoopbackRedirect('notes', 's');
  const cancel = new AbortController();
  const pending = cancelled.code({ timeoutMs: 60_000, signal: cancel.signal });
  cancel.abort();
  await assert.rejects(pending, /the login to notes was cancelled/);
  await cancelled.close();

  const slow = await openLoopbackRedirect('notes', 's');
  await assert.rejects(
    slow.code({ timeoutMs: 1, signal: new AbortController().signal }),
    /no login redirect reached http:\/\/127\.0\.0\.1:\d+\/callback within 1 ms: run `loom mcp login notes` again/,
  );
  await slow.close();
});

test('the login file: 0600 in a 0700 folder, keyed by name and url, never through a link', () => {
  const home = temporaryFolder();
  const store = new TokenStore(home, 'notes', 'http://127.0.0.1:1/mcp');
  store.update((login) => ({ ...login, codeVerifier: 'verifier-value' }));
  assert.equal(statSync(store.path).mode & 0o777, 0o600);
  assert.equal(statSync(store.folder).mode & 0o777, 0o700);
  assert.equal(new TokenStore(home, 'notes', 'http://127.0.0.1:2/mcp').read(), undefined);
  assert.equal(new TokenStore(home, 'other', 'http://127.0.0.1:1/mcp').read(), undefined);
  assert.notEqual(
    loginFileName('notes', 'http://127.0.0.1:1/mcp'),
    loginFileName('notes', 'http://127.0.0.1:2/mcp'),
  );

  const linkedHome = temporaryFolder();
  const linked = new TokenStore(linkedHome, 'notes', 'http://127.0.0.1:1/mcp');
  const target = join(temporaryFolder(), 'elsewhere.json');
  writeFileSync(target, '{}');
  mkdirSync(linked.folder, { recursive: true });
  symlinkSync(target, linked.path);
  assert.throws(() => linked.update((login) => login), /is a symbolic link/);
  assert.throws(() => linked.read(), /is a symbolic link/);
});
