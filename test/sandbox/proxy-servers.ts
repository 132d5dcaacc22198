/**
 * Loopback fixtures for the sandbox proxy's tests: HTTP servers that answer with their name and
 * what they were asked, a port where nothing listens, and requests sent to the proxy's Unix
 * socket (plain HTTP with an absolute URL, and CONNECT followed by a request in the tunnel).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface NamedServer {
  readonly server: Server;
  readonly port: number;
}

/** An HTTP server on 127.0.0.1 answering `NAME METHOD PATH BODY`. */
export async function namedServer(name: string): Promise<NamedServer> {
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => {
      body += chunk;
    });
    incoming.on('end', () => {
      response.setHeader('x-served-by', name);
      response.end(`${name} ${incoming.method} ${incoming.url} ${body}`.trimEnd());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A loopback port nothing listens on (a server's, closed again). */
export async function closedPort(): Promise<number> {
  const { server, port } = await namedServer('closed');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A plain HTTP request through the proxy: the absolute URL is the request target (or `target`). */
export function proxiedRequest(
  socketPath: string,
  url: string,
  options: { method?: string; body?: string; target?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request({
      socketPath,
      method: options.method ?? 'GET',
      path: options.target ?? url,
      headers: { host: new URL(url).host },
    });
    sent.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    sent.on('error', reject);
    sent.end(options.body);
  });
}

function readAll(socket: Duplex, head: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks = [head];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

/**
 * `CONNECT authority` through the proxy; when the tunnel opens, a GET of `/tunnel` is written
 * into it and its raw answer read to the end. A refused CONNECT's own body is read instead.
 */
export function proxiedConnect(
  socketPath: string,
  authority: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ socketPath, method: 'CONNECT', path: authority });
    sent.on('connect', (response, socket: Duplex, head: Buffer) => {
      const status = response.statusCode ?? 0;
      if (status === 200) {
        socket.write(`GET /tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      }
      readAll(socket, head).then((text) => resolve({ status, text }), reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}
