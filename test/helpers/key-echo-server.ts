/**
 * A loopback OpenAI-compatible server that echoes the credential it was sent back in every place
 * a careless server would: the error body, the status text, the response headers, a streamed
 * error, a successful streamed reply (the key cut into small pieces), and an error quoting the
 * key's first 14 and last 8 characters. The prompt picks the answer (`mode:retry`, `mode:json`,
 * `mode:text`, `mode:stream`, `mode:reply`, `mode:partial`). It listens on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatChunk } from './chat-chunk.js';

export const echoModes = ['retry', 'json', 'text', 'stream', 'reply', 'partial'] as const;
export type EchoMode = (typeof echoModes)[number];

export interface KeyEchoServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL an OpenAI-compatible route takes. */
  baseURL: string;
  /** The credential of each request as it arrived (the `Authorization` value after `Bearer`). */
  receivedKeys: string[];
  /** The mode of each request, in arrival order. */
  modes: EchoMode[];
  close(): Promise<void>;
}

/** How a careful-looking server quotes a key: its first 14 and last 8 characters. */
export function quotedParts(key: string): string[] {
  return [key.slice(0, 14), key.slice(-8)];
}

/** Every encoding of `key` the server puts in an echo, the raw key first. */
export function echoedForms(key: string): string[] {
  return [
    key,
    `Bearer ${key}`,
    Buffer.from(key).toString('base64'),
    Buffer.from(`:${key}`).toString('base64'),
    Buffer.from(`user:${key}`).toString('base64'),
    Buffer.from(`api:${key}`).toString('base64url'),
    encodeURIComponent(key),
  ];
}

function describeEcho(key: string, request: IncomingMessage): string {
  const [raw, bearer, base64, colonBase64, basic, base64url, urlEncoded] = echoedForms(key);
  return [
    `Incorrect API key provided: ${raw}.`,
    `You sent Authorization: ${bearer}, x-api-key: ${raw}, "authorization":"${bearer}",`,
    `Basic ${basic}, ${colonBase64}, key ${base64}, ${base64url},`,
    `${request.url}?api_key=${urlEncoded} and ${JSON.stringify({ key: raw })}`,
  ].join(' ');
}

/** A successful chat-completions stream of `text`, five characters a chunk. */
function replyStream(text: string): string {
  const chunk = (delta: object, finish: string | null, usage?: object) =>
    chatChunk('echo', delta, finish, usage);
  let body = chunk({ role: 'assistant', content: '' }, null);
  for (let at = 0; at < text.length; at += 5)
    body += chunk({ content: text.slice(at, at + 5) }, null);
  body += chunk({}, 'stop', { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });
  return `${body}data: [DONE]\n\n`;
}

function modeOf(body: string): EchoMode {
  const match = /mode:(\w+)/.exec(body);
  const mode = echoModes.find((candidate) => candidate === match?.[1]);
  if (mode === undefined) throw new Error(`key echo server: no known mode:NAME in ${body}`);
  return mode;
}

export async function startKeyEchoServer(): Promise<KeyEchoServer> {
  const receivedKeys: string[] = [];
  const modes: EchoMode[] = [];
  const server: Server = createServer(async (request, response) => {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const authorization = request.headers.authorization ?? '';
    const key = authorization.replace(/^Bearer\s+/, '');
    receivedKeys.push(key);
    const mode = modeOf(Buffer.concat(parts).toString('utf8'));
    modes.push(mode);
    const echo = describeEcho(key, request);
    const headers = {
      'x-echo-authorization': authorization,
      'x-echo-key': key,
      'www-authenticate': `Bearer error="invalid_token", token="${key}"`,
    };
    const errorBody = JSON.stringify({
      error: { message: echo, type: 'invalid_request_error', code: 'invalid_api_key' },
    });
    switch (mode) {
      case 'retry':
        response.writeHead(429, { ...headers, 'content-type': 'application/json' });
        response.end(errorBody);
        return;
      case 'json':
        response.writeHead(401, { ...headers, 'content-type': 'application/json' });
        response.end(errorBody);
        return;
      case 'text':
        response.writeHead(401, `Unauthorized ${key} ${echoedForms(key).join(' ')}`, {
          ...headers,
          'content-type': 'text/plain',
        });
        response.end(`not json: ${echo}`);
        return;
      case 'stream':
        response.writeHead(200, { ...headers, 'content-type': 'text/event-stream' });
        response.end(`data: ${errorBody}\n\n`);
        return;
      case 'reply':
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(replyStream(`Your key is ${key}. ${echo} ${quotedParts(key).join('…')}`));
        return;
      case 'partial': {
        const [first, last] = quotedParts(key);
        const message = `Incorrect API key provided: ${first}…${last}. Find your key at the dashboard.`;
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message, code: 'invalid_api_key' } }));
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    receivedKeys,
    modes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
