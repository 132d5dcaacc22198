/**
 * A loopback OAuth authorization server and the MCP server it protects, written for the OAuth
 * tests, in the test's own process (so a test reads what they saw): RFC 9728 resource metadata on
 * the MCP server, RFC 8414 metadata, RFC 7591 registration, an `/authorize` that approves at once
 * (a redirect to the registered loopback URI with the code and state), and a `/token` that checks
 * the PKCE verifier (S256) and issues short-lived access tokens with a rotating refresh token. The
 * MCP endpoint (the SDK's McpServer over streamable HTTP, stateless) answers 401 with
 * `WWW-Authenticate: Bearer resource_metadata=...` without a valid token; its tools are `note` and
 * `echo_token`, a careless one that repeats the token it got. The same server is at `/sse` over
 * the older HTTP+SSE transport (its own resource, `sseUrl`). An RFC 7009 `/revoke` ends a token
 * (advertised as `revocation_endpoint`; `failRevocation` makes it answer 503).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface OAuthFixture {
  /** The MCP endpoint: `http://127.0.0.1:PORT/mcp`. */
  mcpUrl: string;
  /** The same server over HTTP+SSE: `http://127.0.0.1:PORT/sse`. */
  sseUrl: string;
  /** The tokens `/revoke` was sent, with their `token_type_hint`, and the client id sent. */
  revoked: Array<{ token: string; hint: string | null; clientId: string | null }>;
  /** `/revoke` answers 503 (a failed revocation). */
  failRevocation: boolean;
  /** The authorization server's origin. */
  issuer: string;
  /** The grant types `/token` accepted, in order. */
  grants: string[];
  /** Every access and refresh token issued. */
  issued: { access: string[]; refresh: string[] };
  /** Clients registered (client ids). */
  clients: string[];
  /** Tool calls the MCP server answered. */
  toolCalls: number;
  /** Access tokens issued from now on carry this `expires_in` (seconds); default 3600. */
  expiresIn: number;
  /** Every access token issued so far stops working (as if it expired). */
  expireAccessTokens(): void;
  /** Every refresh token issued so far stops working. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface Client {
  redirectUris: string[];
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const token = (prefix: string) => `${prefix}-${randomBytes(18).toString('base64url')}`;

export async function startOAuthFixture(): Promise<OAuthFixture> {
  const clients = new Map<string, Client>();
  const codes = new Map<string, Grant>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Map<string, string>();

  const authorization = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint: `${issuer}/revoke`,
        revocation_endpoint_auth_methods_supported: ['none'],
      });
      return;
    }
    if (url.pathname === '/revoke' && request.method === 'POST') {
      const form = new URLSearchParams(await body(request));
      if (fixture.failRevocation) {
        json(response, 503, { error: 'temporarily_unavailable' });
        return;
      }
      const revoked = form.get('token') ?? '';
      fixture.revoked.push({
        token: revoked,
        hint: form.get('token_type_hint'),
        clientId: form.get('client_id'),
      });
      accessTokens.delete(revoked);
      refreshTokens.delete(revoked);
      response.writeHead(200).end();
      return;
    }
    if (url.pathname === '/register' && request.method === 'POST') {
      const metadata = JSON.parse(await body(request)) as { redirect_uris?: string[] };
      const uris = metadata.redirect_uris ?? [];
      if (uris.length === 0 || !uris.every((uri) => uri.startsWith('http://127.0.0.1:'))) {
        json(response, 400, { error: 'invalid_redirect_uri' });
        return;
      }
      const clientId = token('client');
      clients.set(clientId, { redirectUris: uris });
      fixture.clients.push(clientId);
      json(response, 201, {
        ...metadata,
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
      });
      return;
    }
    if (url.pathname === '/authorize') {
      const query = url.searchParams;
      const clientId = query.get('client_id') ?? '';
      const redirectUri = query.get('redirect_uri') ?? '';
      const client = clients.get(clientId);
      if (
        !client?.redirectUris.includes(redirectUri) ||
        query.get('response_type') !== 'code' ||
        query.get('code_challenge_method') !== 'S256'
      ) {
        json(response, 400, { error: 'invalid_request' });
        return;
      }
      const code = token('code');
      codes.set(code, {
        clientId,
        redirectUri,
        challenge: query.get('code_challenge') ?? '',
        resource: query.get('resource'),
      });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      target.searchParams.set('state', query.get('state') ?? '');
      response.writeHead(302, { location: target.href }).end();
      return;
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      const form = new URLSearchParams(await body(request));
      const grantType = form.get('grant_type') ?? '';
      const clientId = form.get('client_id') ?? '';
      if (grantType === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          !grant ||
          grant.clientId !== clientId ||
          grant.redirectUri !== form.get('redirect_uri') ||
          grant.challenge !== challenge ||
          (grant.resource !== mcpUrl && grant.resource !== sseUrl) ||
          form.get('resource') !== grant.resource
        ) {
          json(response, 400, { error: 'invalid_grant' });
          return;
        }
      } else if (grantType === 'refresh_token') {
        const refresh = form.get('refresh_token') ?? '';
        if (refreshTokens.get(refresh) !== clientId) {
          json(response, 400, { error: 'invalid_grant' });
          return;
        }
        refreshTokens.delete(refresh);
      } else {
        json(response, 400, { error: 'unsupported_grant_type' });
        return;
      }
      fixture.grants.push(grantType);
      const access = token('access');
      const refresh = token('refresh');
      accessTokens.add(access);
      refreshTokens.set(refresh, clientId);
      fixture.issued.access.push(access);
      fixture.issued.refresh.push(refresh);
      json(response, 200, {
        access_token: access,
        token_type: 'Bearer',
        expires_in: fixture.expiresIn,
        refresh_token: refresh,
      });
      return;
    }
    json(response, 404, { error: 'not_found' });
  });

  const resource = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', mcpOrigin);
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      const sse = url.pathname.endsWith('/sse');
      json(response, 200, { resource: sse ? sseUrl : mcpUrl, authorization_servers: [issuer] });
      return;
    }
    const path = url.pathname === '/messages' ? '/sse' : url.pathname;
    if (path !== '/mcp' && path !== '/sse') {
      json(response, 404, { error: 'not_found' });
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !accessTokens.has(bearer)) {
      response
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${mcpOrigin}/.well-known/oauth-protected-resource${path}"`,
        })
        .end();
      return;
    }
    if (url.pathname === '/messages') {
      const stream = sseStreams.get(url.searchParams.get('sessionId') ?? '');
      if (!stream) {
        json(response, 404, { error: 'no such session' });
        return;
      }
      await stream.handlePostMessage(request, response);
      return;
    }
    if (path === '/sse' && request.method === 'GET') {
      const stream = new SSEServerTransport('/messages', response);
      sseStreams.set(stream.sessionId, stream);
      const server = notesServer(bearer);
      response.on('close', () => {
        sseStreams.delete(stream.sessionId);
        void server.close();
      });
      await server.connect(stream);
      return;
    }
    if (request.method !== 'POST' || path !== '/mcp') {
      response.writeHead(405).end();
      return;
    }
    const server = notesServer(bearer);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });

  const sseStreams = new Map<string, SSEServerTransport>();
  const notesServer = (bearer: string) => {
    const server = new McpServer({ name: 'oauth-notes', version: '1.0.0' });
    server.registerTool('note', { description: 'A note only a logged-in client reads' }, () => {
      fixture.toolCalls += 1;
      return { content: [{ type: 'text', text: 'the note behind the login' }] };
    });
    // A careless server: it repeats the token it was sent (Loom must redact it).
    server.registerTool('echo_token', { description: 'Says which token it got' }, () => ({
      content: [{ type: 'text', text: `your token is ${bearer}` }],
    }));
    return server;
  };

  const issuer = await listen(authorization);
  const mcpOrigin = await listen(resource);
  const mcpUrl = `${mcpOrigin}/mcp`;
  const sseUrl = `${mcpOrigin}/sse`;
  const fixture: OAuthFixture = {
    mcpUrl,
    sseUrl,
    revoked: [],
    failRevocation: false,
    issuer,
    grants: [],
    issued: { access: [], refresh: [] },
    clients: [],
    toolCalls: 0,
    expiresIn: 3600,
    expireAccessTokens: () => accessTokens.clear(),
    revokeRefreshTokens: () => refreshTokens.clear(),
    async close() {
      for (const server of [authorization, resource]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
  return fixture;
}

/**
 * What a browser does with the authorization URL: GET it, follow its redirect to Loom's loopback
 * callback, and return that page's status and text.
 */
export async function approveInBrowser(url: string): Promise<{ status: number; page: string }> {
  const authorize = await fetch(url, { redirect: 'manual' });
  const location = authorize.headers.get('location');
  if (authorize.status !== 302 || location === null) {
    throw new Error(`/authorize answered ${authorize.status}: ${await authorize.text()}`);
  }
  const callback = await fetch(location);
  return { status: callback.status, page: await callback.text() };
}
