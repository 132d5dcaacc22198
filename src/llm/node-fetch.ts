/**
 * The `fetch` the model providers use: one request over `node:http` or `node:https`, answered
 * with a small Response (status, headers, a web stream body, `text()`, `json()`). Node 20's own
 * fetch is undici, whose first request in a process costs about 50 ms before any byte moves,
 * a quarter of a one-prompt `loom run` against a local server (measured with
 * `npm run bench -- providers`). It behaves as fetch does where the AI SDK looks: a connection
 * failure is `TypeError('fetch failed')` with the socket error as `cause`, an abort rejects (or
 * errors the body) with an `AbortError`, a response is not decompressed because none is asked
 * for, and a connection silent for `IDLE_TIMEOUT_MS` fails as undici's 300 s timeouts do.
 * Redirects are not followed (provider APIs answer directly; a redirect is a response).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { LightHeaders } from './light-headers.js';

const IDLE_TIMEOUT_MS = 300_000;

// Keep-alive: a session's requests reuse one connection. An idle socket is unref'd by the agent,
// so it never holds the process open.
const httpAgent = new HttpAgent({ keepAlive: true });

/** node:https (and TLS with it) loads at the first https request: a local server needs neither. */
let https: { request: typeof Https.request; agent: Https.Agent } | undefined;
function httpsModule(): { request: typeof Https.request; agent: Https.Agent } {
  if (https === undefined) {
    const loaded = createRequire(import.meta.url)('node:https') as typeof Https;
    https = { request: loaded.request, agent: new loaded.Agent({ keepAlive: true }) };
  }
  return https;
}

type FetchInput = string | URL | { url: string };

interface FetchInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
}

export class NodeFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: LightHeaders;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  readonly body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(message: IncomingMessage, url: string) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new LightHeaders(message.headers);
    this.url = url;
    this.body = Readable.toWeb(message) as ReadableStream<Uint8Array>;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.#bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async #bytes(): Promise<Buffer> {
    if (this.#used || this.body === null) throw new TypeError('Body is unusable: already read');
    this.#used = true;
    const chunks: Buffer[] = [];
    for await (const chunk of this.body as unknown as AsyncIterable<Uint8Array>)
      chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
}

/** `fetch` over node:http(s), for the AI SDK providers' `fetch` setting. */
export function nodeFetch(input: FetchInput, init: FetchInit = {}): Promise<NodeFetchResponse> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:')
    return Promise.reject(new TypeError(`fetch failed: ${url.protocol} is not http or https`));
  return new Promise((resolve, reject) => {
    const options = { method: init.method ?? 'GET', headers: plainHeaders(init.headers) };
    const request = secure
      ? httpsModule().request(url, { ...options, agent: httpsModule().agent })
      : httpRequest(url, { ...options, agent: httpAgent });
    let response: IncomingMessage | undefined;
    // An abort or a timeout after the headers ends the body with the same error.
    const fail = (error: Error) => {
      response?.destroy(error);
      request.destroy(error);
    };
    const onAbort = () => fail(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.setTimeout(IDLE_TIMEOUT_MS, () =>
      fail(timeoutError(response ? 'UND_ERR_BODY_TIMEOUT' : 'UND_ERR_HEADERS_TIMEOUT')),
    );
    request.on('error', (error) => {
      if (response) return;
      signal?.removeEventListener('abort', onAbort);
      reject(isAbort(error) ? error : new TypeError('fetch failed', { cause: error }));
    });
    request.on('response', (message) => {
      response = message;
      message.on('close', () => signal?.removeEventListener('abort', onAbort));
      resolve(new NodeFetchResponse(message, url.href));
    });
    writeBody(request, init.body);
  });
}

function writeBody(request: ReturnType<typeof httpRequest>, body: unknown): void {
  if (body === undefined || body === null) {
    request.end();
  } else if (typeof body === 'string' || body instanceof Uint8Array) {
    request.end(body);
  } else if (body instanceof ArrayBuffer) {
    request.end(Buffer.from(body));
  } else {
    request.destroy(new TypeError('fetch failed: a request body must be a string or bytes'));
  }
}

function plainHeaders(headers: unknown): Record<string, string> {
  if (headers === undefined || headers === null) return {};
  const plain: Record<string, string> = {};
  const add = (value: unknown, name: string) => {
    if (value !== undefined && value !== null) plain[name.toLowerCase()] = String(value);
  };
  const forEach = (headers as { forEach?: unknown }).forEach;
  if (typeof forEach === 'function' && !Array.isArray(headers)) {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach(add);
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers as [string, string][]) add(value, name);
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>))
      add(value, name);
  }
  return plain;
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

function isAbort(error: Error): boolean {
  return error.name === 'AbortError';
}

function timeoutError(code: string): Error {
  return Object.assign(new Error(`no data from the server for ${IDLE_TIMEOUT_MS / 1000} s`), {
    code,
  });
}
