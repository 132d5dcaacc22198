/**
 * Loom's side of the MCP SDK's OAuth client (`OAuthClientProvider`), over one server's login file
 * (token-store.ts). In a connection (`connect`) it hands the transport the stored access token,
 * refreshes an expired one before use (the SDK refreshes on a 401 by itself), and never starts a
 * browser flow: a server that needs one fails alone with "needs login: run `loom mcp login
 * NAME`". In `login` (only `loom mcp login`) it registers the client dynamically, keeps the PKCE
 * verifier, and gives the authorization URL to the caller. Token values never leave the file and
 * the SDK's requests. The SDK itself is imported only when a refresh runs.
 */
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { loomHome } from '../core/home.js';
import { loomVersion } from '../core/version.js';
import { type StoredLogin, TokenStore } from './token-store.js';

/** An access token that expires within this is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 30_000;

/** The redirect URL of a connection, which never redirects (a login stores its own). */
const UNUSED_REDIRECT = 'http://127.0.0.1/callback';

/** A server that needs a login the connection cannot run: its tools are absent until one. */
export class NeedsLoginError extends Error {
  constructor(server: string) {
    super(`needs login: run \`loom mcp login ${server}\``);
    this.name = new.target.name;
  }
}

/** A server that answered 401 and publishes no OAuth metadata to log in with. */
export class NoOAuthMetadataError extends Error {
  constructor(server: string) {
    super(
      `it answered 401 Unauthorized and publishes no OAuth authorization server metadata (RFC 8414), so Loom cannot log in to ${server}: if it takes a key, send it in headers (Authorization: Bearer \${VARIABLE})`,
    );
    this.name = new.target.name;
  }
}

export type ProviderMode =
  | { kind: 'connect' }
  | {
      kind: 'login';
      /** `http://127.0.0.1:PORT/callback`, where the login listens. */
      redirectUrl: string;
      /** The `state` the redirect must bring back. */
      state: string;
      /** What discovery found before the flow started (so the SDK does not repeat it). */
      discovery: OAuthDiscoveryState;
      /** Receives the URL the user opens; must not throw. */
      showAuthorizationUrl(url: URL): void;
    };

export class LoomOAuthProvider implements OAuthClientProvider {
  private readonly store: TokenStore;
  private readonly mode: ProviderMode;
  private readonly now: () => number;
  private discovered: OAuthDiscoveryState | undefined;
  private refreshing: Promise<void> | undefined;
  /** The access token this provider last handed out: tokens another request replaced stay. */
  private lastAccessToken: string | undefined;
  private verifierInMemory: string | undefined;
  /** Set once this connection found it needs a login (or a login it cannot run). */
  needsLogin = false;

  constructor(store: TokenStore, mode: ProviderMode, now: () => number = Date.now) {
    this.store = store;
    this.mode = mode;
    this.now = now;
    if (mode.kind === 'login') this.discovered = mode.discovery;
  }

  get redirectUrl(): string {
    if (this.mode.kind === 'login') return this.mode.redirectUrl;
    const registered = this.store.read()?.clientInformation;
    const uris = (registered as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : UNUSED_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Loom',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      software_id: 'loom',
      software_version: loomVersion,
    };
  }

  state(): string {
    return this.mode.kind === 'login' ? this.mode.state : '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const stored = this.store.read()?.clientInformation;
    if (this.mode.kind === 'login') {
      const uris = (stored as { redirect_uris?: unknown } | undefined)?.redirect_uris;
      // A registration for another loopback port would be refused: register again.
      return Array.isArray(uris) && uris.includes(this.mode.redirectUrl) ? stored : undefined;
    }
    if (stored) return stored;
    if (this.discovered && this.discovered.authorizationServerMetadata === undefined) {
      throw new NoOAuthMetadataError(this.store.server);
    }
    this.needsLogin = true;
    throw new NeedsLoginError(this.store.server);
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): void {
    if (this.mode.kind === 'connect') {
      // Only a login registers (a stored registration bound to a server that moved ends here).
      this.needsLogin = true;
      throw new NeedsLoginError(this.store.server);
    }
    this.store.update((login) => ({ ...login, clientInformation }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // A login always runs the browser flow, even when a refresh token is stored.
    if (this.mode.kind === 'login') return undefined;
    const stored = this.store.read();
    const tokens = stored?.tokens;
    if (!tokens) return undefined;
    const expired =
      stored.expiresAt !== undefined && stored.expiresAt - REFRESH_MARGIN_MS <= this.now();
    if (!expired || tokens.refresh_token === undefined) return this.seen(tokens);
    // Requests sent together wait for one refresh (a second would spend a rotated token).
    this.refreshing ??= this.refresh(stored, tokens.refresh_token).finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
    return this.seen(this.store.read()?.tokens);
  }

  private seen(tokens: OAuthTokens | undefined): OAuthTokens | undefined {
    this.lastAccessToken = tokens?.access_token;
    return tokens;
  }

  /** Trades the refresh token for new tokens; a refusal drops them and needs login. */
  private async refresh(stored: StoredLogin, refreshToken: string): Promise<void> {
    const sdk = await import('@modelcontextprotocol/sdk/client/auth.js');
    const { OAuthError, ServerError } = await import(
      '@modelcontextprotocol/sdk/server/auth/errors.js'
    );
    const clientInformation = stored.clientInformation;
    if (!clientInformation) {
      this.needsLogin = true;
      throw new NeedsLoginError(this.store.server);
    }
    const discovery = await sdk.discoverOAuthServerInfo(this.store.url, {
      ...(stored.resourceMetadataUrl
        ? { resourceMetadataUrl: new URL(stored.resourceMetadataUrl) }
        : {}),
    });
    const resource = discovery.resourceMetadata?.resource;
    try {
      const next = await sdk.refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata
          ? { metadata: discovery.authorizationServerMetadata }
          : {}),
        clientInformation,
        refreshToken,
        ...(resource ? { resource } : {}),
      });
      this.saveTokens({ ...next, issuer: String(discovery.authorizationServerUrl) });
    } catch (error) {
      if (!(error instanceof OAuthError) || error instanceof ServerError) throw error;
      this.store.update(({ tokens: _refused, expiresAt: _expiry, ...rest }) => rest);
      this.needsLogin = true;
      throw new NeedsLoginError(this.store.server);
    }
  }

  saveTokens(tokens: OAuthTokens): void {
    const expiresIn = tokens.expires_in;
    this.store.update((login) => {
      const { expiresAt: _previous, codeVerifier: _used, ...rest } = login;
      return {
        ...rest,
        tokens,
        ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn)
          ? { expiresAt: this.now() + expiresIn * 1000 }
          : {}),
      };
    });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.mode.kind === 'connect') {
      this.needsLogin = true;
      throw new NeedsLoginError(this.store.server);
    }
    this.mode.showAuthorizationUrl(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.mode.kind === 'connect') {
      this.verifierInMemory = codeVerifier;
      return;
    }
    this.store.update((login) => ({ ...login, codeVerifier }));
  }

  codeVerifier(): string {
    const verifier =
      this.mode.kind === 'connect' ? this.verifierInMemory : this.store.read()?.codeVerifier;
    if (verifier === undefined) {
      throw new Error(`no login to ${this.store.server} is in progress (no PKCE verifier stored)`);
    }
    return verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'discovery') {
      this.discovered = undefined;
      return;
    }
    const stored = this.store.read();
    if (stored === undefined) return;
    const replaced =
      stored.tokens !== undefined && stored.tokens.access_token !== this.lastAccessToken;
    // Tokens a parallel request (or process) refreshed meanwhile are not the ones that failed.
    if (scope === 'tokens' && replaced) return;
    this.store.update((login) => {
      const next = { ...login };
      if (scope === 'all' || scope === 'client') delete next.clientInformation;
      if (scope === 'all' || scope === 'tokens') {
        delete next.tokens;
        delete next.expiresAt;
      }
      if (scope === 'all' || scope === 'verifier') delete next.codeVerifier;
      return next;
    });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.mode.kind === 'login' ? this.discovered : undefined;
  }
}

/** The header that carries a declaration's own credentials, which OAuth would replace. */
export function hasAuthorizationHeader(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * The provider of a connection to the HTTP server `name` at `url` (expanded), over Loom's home;
 * none when the declaration sends its own Authorization header, which OAuth must not replace.
 */
export function connectionAuthProvider(
  name: string,
  url: string,
  headers: Record<string, string>,
): LoomOAuthProvider | undefined {
  if (hasAuthorizationHeader(headers)) return undefined;
  return new LoomOAuthProvider(new TokenStore(loomHome(), name, url), { kind: 'connect' });
}
