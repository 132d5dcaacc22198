/**
 * The network proxy behind `sandbox.allowedHosts`: a small HTTP proxy that Loom runs on the
 * host, listening on a Unix socket that the sandbox's bwrap binds in (src/sandbox/
 * proxy-bridge.mjs, run inside the sandbox, turns it back into a loopback TCP port there). It
 * speaks the two forms HTTP clients use through HTTP_PROXY / HTTPS_PROXY:
 * - `CONNECT host:port` (HTTPS and any other TCP): checked, then bytes are piped both ways;
 * - absolute-URI requests (`GET http://host:port/path`): checked, forwarded, the answer streamed
 *   back (an `Upgrade` request, such as a WebSocket, is checked the same way and then piped).
 * A host the list does not name gets `403` with a body naming it and `sandbox.allowedHosts`;
 * an upstream that cannot be reached gets `502` naming the error. Matching is by name as
 * requested, never by resolved address (src/sandbox/host-pattern.ts).
 * One proxy serves a whole Loom process (one allow-list, one HTTP server); each command gets a
 * socket of its own from `listen(onRequest)`, so every decision is reported to the command that
 * asked (Loom logs it in that agent's session). The sockets live in a fresh private folder under
 * os.tmpdir() (`loom-proxy-XXXXXX/command-N.sock`, made by mkdtemp with mode 0700, so nobody
 * else can plant a symlink or a socket there); close() removes it. Everything is synchronous
 * but the final close: a Unix socket is bound and listening when `listen` returns (Node binds
 * it at once), so a command can be planned and started in the same tick. No handle of the proxy
 * keeps Node running.
 */
import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, createServer as createSocketServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { SandboxNetworkRequest } from './contract.js';
import { hostAllowed, normalizeHost, parseHostPatterns } from './host-pattern.js';

export interface NetworkProxyOptions {
  /** The entries of `sandbox.allowedHosts`; a malformed one makes the start throw naming it. */
  readonly allowedHosts: readonly string[];
}

/** Told of each request decided on one socket; an exception it throws is ignored. */
export type ProxyReport = (request: SandboxNetworkRequest) => void;

/** One command's way in: a Unix socket of its own. */
export interface ProxySocket {
  /** Absolute path, in the proxy's private folder. */
  readonly socketPath: string;
  /** Stops listening, ends this socket's connections and removes the socket. Idempotent. */
  close(): void;
}

export interface NetworkProxy {
  /** The private folder (mode 0700) the sockets live in. */
  readonly folder: string;
  /** A new socket, listening when this returns; its requests are reported to `onRequest`. */
  listen(onRequest?: ProxyReport): ProxySocket;
  /**
   * Closes every socket, ends every open connection and removes the folder at once (so it is
   * safe in a process `exit` listener); resolves when the server has closed. Idempotent.
   */
  close(): Promise<void>;
}

const ALLOWED_HOSTS_KEY = 'sandbox.allowedHosts';

/** Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !listed.has(name)) kept[name] = value;
  }
  return kept;
}

function deniedMessage(host: string, port: number): string {
  const shown = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return `loom: the sandbox does not allow network access to ${shown}. To allow it, add "${shown}" to ${ALLOWED_HOSTS_KEY} in Loom's config.\n`;
}

function unreachableMessage(host: string, port: number, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return `loom: the sandbox's proxy could not reach ${host}:${port}: ${code ?? error.message}\n`;
}

/** A complete HTTP/1.1 answer written straight on a socket (CONNECT, Upgrade), then closed. */
function answerRaw(socket: Duplex, status: number, reason: string, body: string): void {
  if (socket.destroyed) return;
  const bytes = Buffer.from(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function answer(response: ServerResponse, status: number, body: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/** `host:port` of a CONNECT request (`[v6]:port` for IPv6), or undefined when malformed. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const host = normalizeHost(match[1] ?? '');
  const port = Number(match[2]);
  if (host === undefined || !(port >= 1 && port <= 65535)) return undefined;
  return { host, port };
}

/** Host, port and path of an absolute `http://` request target, or a reason it is refused. */
function parseAbsolute(
  target: string,
): { host: string; port: number; path: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return {
      refused: `loom: the sandbox's proxy takes absolute URLs (GET http://host/path) or CONNECT host:port, not "${target}"\n`,
    };
  }
  if (url.protocol !== 'http:') {
    return {
      refused: `loom: the sandbox's proxy forwards http:// URLs; for ${url.protocol} use CONNECT (HTTPS_PROXY)\n`,
    };
  }
  const host = normalizeHost(url.hostname);
  if (host === undefined) return { refused: `loom: "${url.hostname}" is not a host name\n` };
  return {
    host,
    port: url.port === '' ? 80 : Number(url.port),
    path: `${url.pathname}${url.search}`,
  };
}

/** Starts the proxy (no socket yet: see `listen`). Throws if an entry of allowedHosts is malformed. */
export function startNetworkProxy(options: NetworkProxyOptions): NetworkProxy {
  const patterns = parseHostPatterns(options.allowedHosts);
  /** The report of the socket each connection came in on. */
  const reports = new WeakMap<Duplex, ProxyReport>();
  const decide = (client: Duplex, host: string, port: number, method: string): boolean => {
    const allowed = hostAllowed(patterns, host, port);
    try {
      reports.get(client)?.({ host, port, method, allowed });
    } catch {
      // A failing listener must not take the proxy down.
    }
    return allowed;
  };

  const folder = mkdtempSync(join(tmpdir(), 'loom-proxy-'));
  const info = lstatSync(folder);
  if (!info.isDirectory() || (info.mode & 0o077) !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`the sandbox proxy's folder ${folder} is not a private directory (mode 0700)`);
  }
  const open = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  };

  const forward = (request: IncomingMessage, response: ServerResponse): void => {
    const target = parseAbsolute(request.url ?? '');
    if ('refused' in target) {
      answer(response, 400, target.refused);
      return;
    }
    const method = request.method ?? 'GET';
    if (!decide(request.socket, target.host, target.port, method)) {
      request.resume();
      answer(response, 403, deniedMessage(target.host, target.port));
      return;
    }
    const upstream = httpRequest({
      host: target.host,
      port: target.port,
      method,
      path: target.path,
      headers: forwardedHeaders(request.headers),
      agent: false,
    });
    upstream.on('response', (answerFromUpstream) => {
      response.writeHead(
        answerFromUpstream.statusCode ?? 502,
        answerFromUpstream.statusMessage,
        forwardedHeaders(answerFromUpstream.headers),
      );
      answerFromUpstream.pipe(response);
      answerFromUpstream.on('error', () => response.destroy());
    });
    upstream.on('error', (error) => {
      answer(response, 502, unreachableMessage(target.host, target.port, error));
    });
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  };

  /** Opens a TCP connection for a CONNECT or an Upgrade; `opened` runs once it is up. */
  const tunnel = (
    client: Duplex,
    host: string,
    port: number,
    opened: (upstream: Socket) => void,
  ): void => {
    const upstream = connect({ host, port });
    track(upstream);
    let connected = false;
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('error', (error) => {
      if (connected) client.destroy();
      else answerRaw(client, 502, 'Bad Gateway', unreachableMessage(host, port, error));
    });
    upstream.on('close', () => {
      if (connected) client.destroy();
    });
    upstream.on('connect', () => {
      connected = true;
      opened(upstream);
      upstream.pipe(client);
      client.pipe(upstream);
    });
  };

  const server = createServer(forward);
  server.on('connection', (socket: Socket) => {
    track(socket);
    socket.on('error', () => socket.destroy());
  });
  server.on('clientError', (_error, socket) => {
    answerRaw(
      socket,
      400,
      'Bad Request',
      "loom: the sandbox's proxy could not parse the request\n",
    );
  });
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const target = parseAuthority(request.url ?? '');
    if (target === undefined) {
      answerRaw(
        client,
        400,
        'Bad Request',
        `loom: CONNECT takes host:port, not "${request.url ?? ''}"\n`,
      );
      return;
    }
    if (!decide(client, target.host, target.port, 'CONNECT')) {
      answerRaw(client, 403, 'Forbidden', deniedMessage(target.host, target.port));
      return;
    }
    tunnel(client, target.host, target.port, (upstream) => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
    });
  });
  server.on('upgrade', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const target = parseAbsolute(request.url ?? '');
    if ('refused' in target) {
      answerRaw(client, 400, 'Bad Request', target.refused);
      return;
    }
    if (!decide(client, target.host, target.port, request.method ?? 'GET')) {
      answerRaw(client, 403, 'Forbidden', deniedMessage(target.host, target.port));
      return;
    }
    tunnel(client, target.host, target.port, (upstream) => {
      const lines = [`${request.method} ${target.path} HTTP/1.1`];
      const raw = request.rawHeaders;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const name = raw[index] ?? '';
        if (name.toLowerCase().startsWith('proxy-')) continue;
        lines.push(`${name}: ${raw[index + 1] ?? ''}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
    });
  });

  const sockets = new Set<ProxySocket>();
  let count = 0;
  let closing: Promise<void> | undefined;
  const listen = (onRequest?: ProxyReport): ProxySocket => {
    if (closing) throw new Error("the sandbox's network proxy is closed");
    count += 1;
    const socketPath = join(folder, `command-${count}.sock`);
    const connections = new Set<Socket>();
    const listener = createSocketServer((socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
      if (onRequest) reports.set(socket, onRequest);
      server.emit('connection', socket);
    });
    let failure: Error | undefined;
    listener.on('error', (error) => {
      failure ??= error;
    });
    // Node binds and listens on a Unix socket before `listen` returns; a failure shows as a
    // server that is not listening (its error event comes a tick later).
    listener.listen(socketPath);
    listener.unref();
    if (!listener.listening) {
      listener.close();
      throw new Error(
        `the sandbox's network proxy could not listen on ${socketPath}${failure ? `: ${failure.message}` : ''}`,
      );
    }
    let closed = false;
    const socket: ProxySocket = {
      socketPath,
      close: () => {
        if (closed) return;
        closed = true;
        sockets.delete(socket);
        listener.close();
        for (const connection of connections) connection.destroy();
        rmSync(socketPath, { force: true });
      },
    };
    sockets.add(socket);
    return socket;
  };

  return {
    folder,
    listen,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of [...sockets]) socket.close();
        for (const socket of open) socket.destroy();
        rmSync(folder, { recursive: true, force: true });
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
