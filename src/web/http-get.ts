/**
 * One `web_fetch` download: a GET over http or https whose redirects are followed here, one hop
 * at a time, each hop held to the same rules (the scheme, the address check through the pinned
 * lookup, the permission rules' word on a new host), at most MAX_REDIRECTS of them. The body is
 * read up to `maxBytes` (decompressed) and the connection dropped there. Refusals and failures
 * throw a `WebError`; the caller's signal (the turn's abort and the time limit) ends it at once.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { errorMessage } from '../base/errors.js';
import { ipLiteral } from './address-check.js';
import { type HostVerdict, MAX_REDIRECTS, WebError } from './contract.js';
import { type AddressPolicy, pinnedLookup, type ResolveHost, refusal } from './pinned-lookup.js';

export interface GetOptions {
  allowPrivate: boolean;
  maxBytes: number;
  signal: AbortSignal;
  resolve: ResolveHost;
  policy: AddressPolicy;
  /** What the permission rules say of a redirect to another host; default nothing. */
  redirectVerdict?: (url: URL) => HostVerdict;
  userAgent: string;
}

export type GetOutcome =
  | {
      kind: 'response';
      url: URL;
      status: number;
      statusText: string;
      contentType: string;
      body: Buffer;
      /** The body went on past `maxBytes` and was not read further. */
      truncated: boolean;
      redirects: number;
    }
  /** A redirect to another host that a permission rule asks about: the model fetches it itself. */
  | { kind: 'redirect-held'; url: URL; status: number; location: URL };

/** The URL as web_fetch takes it, or a `WEB_REFUSED` error saying why not. */
export function checkedUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = base ? new URL(text, base) : new URL(text);
  } catch {
    throw new WebError(
      'WEB_REFUSED',
      `"${text}" is not a URL; give a full http:// or https:// URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebError(
      'WEB_REFUSED',
      `web_fetch reaches only http and https URLs, not ${url.protocol} (${url.href.slice(0, 200)})`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebError('WEB_REFUSED', 'web_fetch takes no user name or password in the URL');
  }
  return url;
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const decompress =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'br'
        ? createBrotliDecompress()
        : encoding === 'deflate'
          ? createInflate()
          : undefined;
  // pipeline passes a failure of the response on to the stream read here.
  return decompress ? pipeline(response, decompress, () => {}) : response;
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const stop = () => {
    stream.destroy();
    response.destroy();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (chunk.length === 0) continue;
      const room = maxBytes - size;
      // A body of exactly maxBytes reads one chunk further to learn that nothing follows.
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new WebError('WEB_FAILED', `reading the page failed: ${errorMessage(error)}`);
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
  if (signal.aborted) throw signal.reason;
  return { body: Buffer.concat(chunks), truncated };
}

function connect(url: URL, options: GetOptions): Promise<IncomingMessage> {
  const literal = ipLiteral(url.hostname);
  if (literal !== undefined && !options.allowPrivate) {
    const kind = options.policy(literal);
    if (kind !== undefined) return Promise.reject(refusal(literal, literal, kind));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'GET',
      headers: {
        'user-agent': options.userAgent,
        accept: 'text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.8',
        'accept-encoding': 'gzip, deflate, br',
      },
      lookup: pinnedLookup(options),
      signal: options.signal,
      // One connection per hop: a pooled socket could carry a request to an address not checked.
      agent: false,
    });
    request.once('response', resolve);
    request.once('error', (error) => {
      if (options.signal.aborted) reject(options.signal.reason);
      else if (error instanceof WebError) reject(error);
      else {
        reject(new WebError('WEB_FAILED', `could not fetch ${url.href}: ${errorMessage(error)}`));
      }
    });
    request.end();
  });
}

/** Fetches `start`, following redirects under the same rules. */
export async function httpGet(start: URL, options: GetOptions): Promise<GetOutcome> {
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    const response = await connect(url, options).catch((error: unknown) => {
      if (redirects > 0 && error instanceof WebError && error.code === 'WEB_REFUSED') {
        throw new WebError(
          'WEB_REFUSED',
          `${start.href} redirected to ${url.href}: ${error.message}`,
        );
      }
      throw error;
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy();
      if (redirects >= MAX_REDIRECTS) {
        throw new WebError(
          'WEB_FAILED',
          `${start.href} redirected more than ${MAX_REDIRECTS} times; stopped at ${url.href}`,
        );
      }
      const next = checkedUrl(location, url);
      if (next.host !== url.host) {
        const verdict = options.redirectVerdict?.(next);
        if (verdict === 'deny') {
          throw new WebError(
            'WEB_REFUSED',
            `${url.href} redirected to ${next.href}, which a permission rule denies`,
          );
        }
        if (verdict === 'ask') return { kind: 'redirect-held', url, status, location: next };
      }
      url = next;
      continue;
    }
    const { body, truncated } = await readBody(response, options.maxBytes, options.signal);
    return {
      kind: 'response',
      url,
      status,
      statusText: response.statusMessage ?? '',
      contentType: String(response.headers['content-type'] ?? ''),
      body,
      truncated,
      redirects,
    };
  }
}
