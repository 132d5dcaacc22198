/**
 * `loom mcp logout`'s revocation (RFC 7009): when the server's authorization server advertises a
 * `revocation_endpoint` (found as at login: the stored `resource_metadata`, RFC 9728, then RFC
 * 8414), the stored refresh token and then the access token are sent to it, with the client's
 * authentication (`client_id` for a public client; a secret by `client_secret_basic` or, when
 * only that is offered, `client_secret_post`). Each request is bounded; an answer other than 200
 * is a failure naming the status and the server's `error`. Messages never hold a token.
 */
import { redactCredentials } from '../base/credential-redaction.js';
import { errorMessage } from '../base/errors.js';
import { urlWithoutCredentials } from './connect-error.js';
import { type StoredLogin, storedSecretValues } from './token-store.js';

/** How long one revocation request may take. */
export const REVOKE_TIMEOUT_MS = 10_000;

export type RevocationOutcome =
  /** The tokens were revoked at `endpoint`. */
  | { kind: 'revoked'; endpoint: string; tokens: number }
  /** Nothing to revoke: no token stored, or no revocation endpoint advertised. */
  | { kind: 'none'; why: 'no tokens' | 'no revocation endpoint' }
  | { kind: 'failed'; message: string };

const clean = (text: string) => redactCredentials(text, storedSecretValues());

/** Revokes the tokens of one stored login; never throws. */
export async function revokeLogin(login: Partial<StoredLogin>): Promise<RevocationOutcome> {
  const tokens = [
    { token: login.tokens?.refresh_token, hint: 'refresh_token' },
    { token: login.tokens?.access_token, hint: 'access_token' },
  ].filter((entry): entry is { token: string; hint: string } => typeof entry.token === 'string');
  if (tokens.length === 0 || login.url === undefined) return { kind: 'none', why: 'no tokens' };
  let endpoint: string | undefined;
  let methods: string[] | undefined;
  try {
    const { discoverOAuthServerInfo } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const discovery = await discoverOAuthServerInfo(login.url, {
      ...(login.resourceMetadataUrl
        ? { resourceMetadataUrl: new URL(login.resourceMetadataUrl) }
        : {}),
    });
    // OAuth metadata names them (RFC 8414); OpenID Connect discovery may carry them too.
    const metadata = discovery.authorizationServerMetadata as
      | { revocation_endpoint?: unknown; revocation_endpoint_auth_methods_supported?: unknown }
      | undefined;
    if (typeof metadata?.revocation_endpoint === 'string') endpoint = metadata.revocation_endpoint;
    const offered = metadata?.revocation_endpoint_auth_methods_supported;
    if (Array.isArray(offered)) methods = offered.filter((method) => typeof method === 'string');
  } catch (error) {
    return {
      kind: 'failed',
      message: clean(
        `its authorization server's metadata could not be read (${urlWithoutCredentials(login.url)}): ${errorMessage(error)}`,
      ),
    };
  }
  if (endpoint === undefined) return { kind: 'none', why: 'no revocation endpoint' };
  const client = login.clientInformation;
  const secret = client?.client_secret;
  const basic =
    secret !== undefined &&
    !(methods?.includes('client_secret_post') && !methods.includes('client_secret_basic'));
  for (const { token, hint } of tokens) {
    const form = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (client?.client_id !== undefined) {
      if (basic) {
        const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret ?? '')}`;
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
      } else {
        form.set('client_id', client.client_id);
        if (secret !== undefined) form.set('client_secret', secret);
      }
    }
    const shown = urlWithoutCredentials(endpoint);
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: form.toString(),
        signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
      });
      if (response.status !== 200) {
        const text = await response.text().catch(() => '');
        let code = '';
        try {
          code = String((JSON.parse(text) as { error?: unknown }).error ?? '');
        } catch {
          // Not JSON: the status says enough.
        }
        return {
          kind: 'failed',
          message: clean(`${shown} answered ${response.status}${code ? ` (${code})` : ''}`),
        };
      }
      await response.body?.cancel();
    } catch (error) {
      return {
        kind: 'failed',
        message: clean(`${shown} could not be reached: ${errorMessage(error)}`),
      };
    }
  }
  return { kind: 'revoked', endpoint, tokens: tokens.length };
}
