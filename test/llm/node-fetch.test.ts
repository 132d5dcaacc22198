/**
 * The providers' own fetch over node:http (src/llm/node-fetch.ts) and its Headers: the request
 * goes out as sent, the answer comes back as a fetch Response would give it, and failures look
 * like fetch's where the AI SDK and model-failure.ts read them. Loopback only.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { LightHeaders } from '../../src/llm/light-headers.js';
import { describeFailure } from '../../src/llm/model-failure.js';
import { nodeFetch } from '../../src/llm/node-fetch.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

async function withServer(handler: Handler, run: (url: string) => Promise<void>): Promise<void> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => handler(request, Buffer.concat(parts).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await run(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test('a POST goes out with its headers and body, and the answer reads as a Response', async () => {
  await withServer(
    (request, body, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-Request-Id': 'r1' });
      response.end(
        JSON.stringify({ method: request.method, auth: request.headers.authorization, body }),
      );
    },
    async (url) => {
      const response = await nodeFetch(`${url}/v1/chat`, {
        method: 'POST',
        headers: { Authorization: 'Bearer k', 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      assert.equal(response.status, 201);
      assert.equal(response.ok, true);
      assert.equal(response.url, `${url}/v1/chat`);
      assert.equal(response.headers.get('X-REQUEST-ID'), 'r1');
      assert.deepEqual(await response.json(), {
        method: 'POST',
        auth: 'Bearer k',
        body: '{"a":1}',
      });
      assert.equal(response.bodyUsed, true);
      await assert.rejects(response.text(), /already read/);
    },
  );
});

test('the body is a web stream that yields each chunk as the server writes it', async () => {
  let second: (() => void) | undefined;
  await withServer(
    (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      second = () => response.end('data: two\n\n');
    },
    async (url) => {
      const response = await nodeFetch(url, { method: 'POST', body: '' });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      assert.equal(Buffer.from(first.value as Uint8Array).toString(), 'data: one\n\n');
      second?.();
      const next = await reader.read();
      assert.equal(Buffer.from(next.value as Uint8Array).toString(), 'data: two\n\n');
      assert.equal((await reader.read()).done, true);
    },
  );
});

test('an abort while the body streams errors the body with an AbortError', async () => {
  await withServer(
    (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    },
    async (url) => {
      const controller = new AbortController();
      const response = await nodeFetch(url, { signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      controller.abort();
      await assert.rejects(reader.read(), { name: 'AbortError' });
      assert.equal(describeFailure(new DOMException('x', 'AbortError')).aborted, true);
    },
  );
});

test('an abort before the answer rejects with an AbortError, as does an aborted signal', async () => {
  await withServer(
    () => {},
    async (url) => {
      const controller = new AbortController();
      const pending = nodeFetch(url, { signal: controller.signal });
      controller.abort();
      await assert.rejects(pending, { name: 'AbortError' });
      await assert.rejects(nodeFetch(url, { signal: controller.signal }), { name: 'AbortError' });
    },
  );
});

test('a refused connection is fetch failed with the socket error as cause: a retryable network failure', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const failure = await nodeFetch(`http://127.0.0.1:${port}/`).then(
    () => assert.fail('the request should fail'),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof TypeError);
  assert.equal(failure.message, 'fetch failed');
  assert.equal((failure.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
  assert.equal(describeFailure(failure).retryable, true);
});

test('a URL that is not http or https is refused', async () => {
  await assert.rejects(nodeFetch('file:///etc/passwd'), /file: is not http or https/);
});

test('LightHeaders: names are case-insensitive, appends join, iteration is in name order', () => {
  const headers = new LightHeaders({ 'User-Agent': 'a', Accept: 'x' });
  headers.append('accept', 'y');
  headers.set('X-B', '1');
  assert.equal(headers.get('user-agent'), 'a');
  assert.equal(headers.get('ACCEPT'), 'x, y');
  assert.equal(headers.has('x-b'), true);
  headers.delete('x-b');
  assert.equal(headers.get('x-b'), null);
  assert.deepEqual(Object.fromEntries(headers.entries()), { accept: 'x, y', 'user-agent': 'a' });
  assert.deepEqual(
    [...headers],
    [
      ['accept', 'x, y'],
      ['user-agent', 'a'],
    ],
  );
  const copied = new LightHeaders(headers);
  assert.deepEqual([...copied], [...headers]);
  assert.deepEqual([...new LightHeaders([['K', 'v']])], [['k', 'v']]);
});
