/**
 * `loom mcp login`'s flow for one HTTP server, through the MCP SDK's client auth: find the
 * server's OAuth metadata (the 401's `resource_metadata`, RFC 9728, then RFC 8414), register Loom
 * dynamically (RFC 7591) for a loopback redirect, give the authorization URL to the caller, wait
 * for the redirect (state checked), and exchange the code with its PKCE verifier; the tokens go to
 * the login file (token-store.ts). Messages name what went wrong without a credential's value.
 */
import { randomBytes } from 'node:crypto';
import { redactCredentials } from '../base/credential-redaction.js';
import { errorMessage, LoomError } from '../base/errors.js';
import { urlWithoutCredentials } from './connect-error.js';
import { McpError, type McpServerDeclaration } from './contract.js';
import { expandVariables } from './expand-variables.js';
import { openLoopbackRedirect } from './loopback-redirect.js';
import { hasAuthorizationHeader, LoomOAuthProvider } from './oauth-provider.js';
import { storedSecretValues, TokenStore } from './token-store.js';

/** How long a login waits for the browser's redirect by default: five minutes. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

export interface LoginOptions {
  declaration: Extract<McpServerDeclaration, { transport: 'http' | 'sse' }>;
  environment: NodeJS.ProcessEnv;
  /** `$LOOM_HOME`. */
  home: string;
  /** How long to wait for the redirect. */
  timeoutMs: number;
  /** Cancels the wait (Ctrl-C). */
  signal: AbortSignal;
  /** Receives the URL the user opens and where it comes back to; must not throw. */
  showAuthorizationUrl(url: string, redirectUrl: string): void;
}

/** The `resource_metadata` URL of the server's 401, if it answers one. */
async function probe(url: string, headers: Record<string, string>, signal: AbortSignal) {
  const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'loom', version: '0' },
      },
    }),
    signal,
  });
  await response.body?.cancel();
  return response.status === 401
    ? extractWWWAuthenticateParams(response).resourceMetadataUrl
    : undefined;
}

/** Logs in to the server; resolves once its tokens are stored. Throws McpError or UserError. */
export async function loginToServer(options: LoginOptions): Promise<void> {
  const { declaration } = options;
  const name = declaration.name;
  const expansion = expandVariables(declaration, options.environment);
  const clean = (text: string) =>
    redactCredentials(text, [...expansion.secrets, ...storedSecretValues()]);
  if (expansion.missing.length > 0) {
    throw new McpError(
      'MCP_LOGIN_FAILED',
      `${name}: environment variable ${expansion.missing.join(', ')} is not set (${declaration.origin} refers to it)`,
    );
  }
  const server = expansion.value as typeof declaration;
  const shown = urlWithoutCredentials(server.url);
  if (hasAuthorizationHeader(server.headers)) {
    throw new McpError(
      'MCP_LOGIN_FAILED',
      `${name} sends its own Authorization header (${declaration.origin}); Loom logs in with OAuth only to a server without one: remove the header to use OAuth`,
    );
  }
  const auth = await import('@modelcontextprotocol/sdk/client/auth.js');
  let resourceMetadataUrl: URL | undefined;
  let discovery: Awaited<ReturnType<typeof auth.discoverOAuthServerInfo>>;
  try {
    resourceMetadataUrl = await probe(server.url, server.headers, options.signal);
    discovery = await auth.discoverOAuthServerInfo(server.url, {
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    });
  } catch (error) {
    throw new McpError(
      'MCP_LOGIN_FAILED',
      clean(
        `could not reach ${name} at ${shown} to find its OAuth metadata: ${errorMessage(error)}`,
      ),
      { cause: error },
    );
  }
  if (discovery.authorizationServerMetadata === undefined) {
    throw new McpError(
      'MCP_LOGIN_FAILED',
      `${name} (${shown}) publishes no OAuth metadata (no /.well-known/oauth-protected-resource naming an authorization server, and no /.well-known/oauth-authorization-server at ${urlWithoutCredentials(discovery.authorizationServerUrl)}): it does not log in with OAuth; if it takes a key, send it in headers`,
    );
  }

  const store = new TokenStore(options.home, name, server.url);
  const state = randomBytes(24).toString('base64url');
  const redirect = await openLoopbackRedirect(name, state, store.read()?.redirectPort);
  try {
    const provider = new LoomOAuthProvider(store, {
      kind: 'login',
      redirectUrl: redirect.redirectUrl,
      state,
      discovery: {
        ...discovery,
        ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
      },
      showAuthorizationUrl: (url) => options.showAuthorizationUrl(url.href, redirect.redirectUrl),
    });
    const flow = {
      serverUrl: server.url,
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    };
    try {
      await auth.auth(provider, flow);
      const code = await redirect.code({ timeoutMs: options.timeoutMs, signal: options.signal });
      const result = await auth.auth(provider, { ...flow, authorizationCode: code });
      if (result !== 'AUTHORIZED')
        throw new Error('the authorization server asked to log in again');
    } catch (error) {
      if (error instanceof LoomError) throw error;
      throw new McpError(
        'MCP_LOGIN_FAILED',
        clean(`logging in to ${name} failed: ${errorMessage(error)}`),
        { cause: error },
      );
    }
    store.update((login) => ({
      ...login,
      redirectPort: redirect.port,
      ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
    }));
  } finally {
    await redirect.close();
    // A login that did not finish leaves no verifier behind.
    if (store.read()?.codeVerifier !== undefined) {
      store.update(({ codeVerifier: _unused, ...rest }) => rest);
    }
  }
}
