/**
 * `loom mcp login NAME` and `loom mcp logout NAME`: the OAuth login of one HTTP MCP server the
 * workspace declares. Login prints the authorization URL on stdout (one line; what to do with it
 * on stderr), waits for the browser's redirect to a loopback port (5 minutes, `--timeout-ms`;
 * Ctrl-C cancels), stores the tokens in `$LOOM_HOME/mcp-auth/` and connects once to count the
 * tools. Logout revokes the server's tokens when its authorization server offers revocation (RFC
 * 7009) and removes its stored login (also when the revocation failed, which it says on stderr).
 * Exit 0 done, 1 failed, 130 cancelled. No token value is ever printed.
 */
import { resolve } from 'node:path';
import { redactCredentials } from '../base/credential-redaction.js';
import { errorMessage, LoomError } from '../base/errors.js';
import { loadConfig } from '../config/load-config.js';
import { loomHome } from '../core/home.js';
import { DEFAULT_OUTPUT_LIMIT, type McpServerDeclaration } from '../mcp/contract.js';
import { startServers } from '../mcp/install.js';
import { DEFAULT_LOGIN_TIMEOUT_MS, loginToServer } from '../mcp/login-flow.js';
import { clientSettings, declaredServers } from '../mcp/server-list.js';
import { removeStoredLogin, storedLogins, storedSecretValues } from '../mcp/token-store.js';
import { configCredentials } from './config-credentials.js';
import { redactOutputWith } from './output-redaction.js';
import { handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface McpLoginOptions {
  cwd?: string;
  timeoutMs?: string;
}

export interface McpLogoutOptions {
  cwd?: string;
}

function fail(message: string): number {
  process.stderr.write(`loom: ${message}\n`);
  return 1;
}

/** The workspace's servers, with every credential they name (and every stored token) redacted. */
function workspaceServers(cwd: string | undefined) {
  const workspace = resolve(cwd ?? process.cwd());
  const config = loadConfig(loomHome(), workspace);
  const servers = declaredServers(config, workspace);
  redactOutputWith(configCredentials(config, servers));
  redactOutputWith({ redact: (text) => redactCredentials(text, storedSecretValues()) });
  return { config, servers, workspace };
}

function known(servers: readonly McpServerDeclaration[]): string {
  const http = servers
    .filter((server) => server.transport === 'http' || server.transport === 'sse')
    .map((server) => server.name);
  return http.length > 0
    ? `the HTTP servers declared here: ${http.join(', ')}`
    : 'no HTTP server is declared here (mcp.servers in config.yaml, or .mcp.json)';
}

function parseTimeout(text: string | undefined): number | string {
  if (text === undefined) return DEFAULT_LOGIN_TIMEOUT_MS;
  const value = Number(text);
  return Number.isInteger(value) && value > 0
    ? value
    : `--timeout-ms must be a whole number of milliseconds above 0, not ${JSON.stringify(text)}`;
}

export async function mcpLoginCommand(name: string, options: McpLoginOptions): Promise<number> {
  const timeoutMs = parseTimeout(options.timeoutMs);
  if (typeof timeoutMs === 'string') return fail(timeoutMs);
  const { config, servers, workspace } = workspaceServers(options.cwd);
  const declaration = servers.find((server) => server.name === name);
  if (!declaration) return fail(`no MCP server is named ${name}: ${known(servers)}`);
  if (declaration.transport === 'invalid') return fail(declaration.problem);
  if (declaration.transport === 'stdio') {
    return fail(
      `${name} is a stdio server (${declaration.origin}): only HTTP servers log in with OAuth; a stdio server takes its credentials from its env`,
    );
  }
  const cancel = new AbortController();
  const signals = handleStopSignals({
    graceful: () => cancel.abort(),
    forced: () => {},
  });
  try {
    await loginToServer({
      declaration,
      environment: process.env,
      home: loomHome(),
      timeoutMs,
      signal: cancel.signal,
      showAuthorizationUrl(url, redirectUrl) {
        process.stdout.write(`${url}\n`);
        process.stderr.write(
          `loom: open the URL above in a browser to log in to ${name}; waiting ${Math.round(timeoutMs / 1000)} s for its redirect to ${redirectUrl} (Ctrl-C cancels)\n`,
        );
      },
    });
  } catch (error) {
    signals.finish();
    if (signals.received) {
      process.stderr.write(`loom: the login to ${name} was cancelled; no tokens were stored\n`);
      return SIGNAL_EXIT_CODES[signals.received];
    }
    if (error instanceof LoomError) return fail(error.message);
    return fail(`logging in to ${name} failed: ${errorMessage(error)}`);
  }
  signals.finish();
  const [result] = await startServers([declaration], {
    environment: process.env,
    outputLimit: config.mcp?.outputLimit ?? DEFAULT_OUTPUT_LIMIT,
    settings: clientSettings(config, workspace),
  });
  await result?.connection.close();
  const status = result?.report.status;
  if (status?.state !== 'connected') {
    return fail(
      `logged in to ${name}, but connecting with the new tokens failed: ${status?.message ?? 'no report'}`,
    );
  }
  const tools = status.tools.filter((tool) => tool.agentName !== undefined).length;
  process.stdout.write(`logged in to ${name}: ${tools} tool${tools === 1 ? '' : 's'}\n`);
  return 0;
}

export async function mcpLogoutCommand(name: string, options: McpLogoutOptions): Promise<number> {
  const { servers } = workspaceServers(options.cwd);
  const logins = storedLogins(loomHome(), name);
  if (logins.length === 0) {
    if (!servers.some((server) => server.name === name)) {
      return fail(
        `no MCP server is named ${name} and no login of that name is stored: ${known(servers)}`,
      );
    }
    process.stderr.write(`loom: ${name} has no stored login; nothing to remove\n`);
    return 0;
  }
  const { revokeLogin } = await import('../mcp/token-revocation.js');
  const outcomes = [];
  for (const { path, login } of logins) {
    // Revoked first (RFC 7009), removed whatever the revocation came to.
    outcomes.push(await revokeLogin(login));
    removeStoredLogin(path);
  }
  for (const outcome of outcomes) {
    if (outcome.kind !== 'failed') continue;
    process.stderr.write(
      `loom: the tokens of ${name} could not be revoked: ${outcome.message}; the stored login is removed anyway, and the tokens stay valid until they expire\n`,
    );
  }
  const revoked = outcomes.some((outcome) => outcome.kind === 'revoked');
  const unrevocable = outcomes.some(
    (outcome) => outcome.kind === 'none' && outcome.why === 'no revocation endpoint',
  );
  const how = revoked
    ? 'its tokens are revoked and its stored login is removed'
    : unrevocable
      ? 'its stored login is removed (its authorization server offers no revocation, so its tokens stay valid until they expire)'
      : 'its stored login is removed';
  process.stdout.write(`logged out of ${name}: ${how}\n`);
  return 0;
}
