/**
 * A loopback HTTP server for provider tests: it answers each request with the next scripted
 * response (status, headers, a body or SSE chunks written one by one) and records what the
 * client sent. It listens on 127.0.0.1 only and must never reach the network.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

export interface ReplayResponse {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Written at once. */
  body?: string;
  /** Written one at a time with a pause between, so the client reads them separately. */
  chunks?: string[];
  /** After the body: end normally (default), keep the connection open, or cut it. */
  after?: 'end' | 'hang' | 'destroy';
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface ReplayServer {
  /** `http://127.0.0.1:PORT`; append the API path prefix a provider expects (such as `/v1`). */
  url: string;
  requests: RecordedRequest[];
  enqueue(...responses: ReplayResponse[]): void;
  close(): Promise<void>;
}

const pauseBetweenChunksMs = 3;

export async function startReplayServer(responses: ReplayResponse[] = []): Promise<ReplayServer> {
  const queue = [...responses];
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (request, response) => {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: parseJson(text),
    });
    const next = queue.shift() ?? {
      status: 599,
      body: JSON.stringify({ error: { message: 'replay server: no scripted response left' } }),
    };
    const streaming = next.chunks !== undefined;
    response.writeHead(next.status ?? 200, {
      'content-type': streaming ? 'text/event-stream' : 'application/json',
      ...(streaming && { 'cache-control': 'no-cache' }),
      ...next.headers,
    });
    if (next.body !== undefined) response.write(next.body);
    for (const chunk of next.chunks ?? []) {
      if (response.destroyed) return;
      response.write(chunk);
      await delay(pauseBetweenChunksMs);
    }
    if (next.after === 'hang') return;
    if (next.after === 'destroy') {
      response.socket?.destroy();
      return;
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...more) => queue.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One replay server for the calling test file: started before its tests and closed after them.
 * The returned server forwards to it, so it may be captured at module level.
 */
export function withReplayServer(): ReplayServer {
  let started: ReplayServer | undefined;
  before(async () => {
    started = await startReplayServer();
  });
  after(() => started?.close());
  const current = (): ReplayServer => {
    if (!started) throw new Error('the replay server is used before it started');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get requests() {
      return current().requests;
    },
    enqueue: (...responses) => current().enqueue(...responses),
    close: () => current().close(),
  };
}

/** The parsed JSON body of the `index`th recorded request; throws when there is none. */
export function sentBody<Body = Record<string, unknown>>(
  server: ReplayServer,
  index: number,
): Body {
  const request = server.requests[index];
  if (!request) throw new Error(`replay server saw no request #${index}`);
  return request.body as Body;
}

/** Reads a recorded wire body from `test/llm/fixtures/`. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Cuts text into `count` pieces of about equal length, so cuts land inside JSON lines. */
export function splitIntoPieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces;
}

/** An SSE body of `data:` events, one per object, as OpenAI-style chat streams send them. */
export function sseEvents(events: unknown[], done = true): string {
  const lines = events.map((event) => `data: ${JSON.stringify(event)}\n\n`);
  return lines.join('') + (done ? 'data: [DONE]\n\n' : '');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
