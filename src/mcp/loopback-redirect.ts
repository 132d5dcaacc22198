/**
 * The loopback end of an OAuth login (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 that waits for
 * the browser's redirect to `/callback`, checks its `state`, answers with a page saying the tab
 * can be closed, and hands back the authorization code. A redirect carrying another state is
 * refused and the wait goes on; one carrying `error` ends it. The code is never logged.
 */
import { createServer, type Server } from 'node:http';
import { McpError } from './contract.js';

export interface LoopbackRedirect {
  /** `http://127.0.0.1:PORT/callback`. */
  readonly redirectUrl: string;
  readonly port: number;
  /** The authorization code; rejects on an `error` redirect, the time limit or the signal. */
  code(options: { timeoutMs: number; signal: AbortSignal }): Promise<string>;
  /** Stops listening. Never throws. */
  close(): Promise<void>;
}

const PAGE_STYLE = 'font-family: sans-serif; margin: 3em;';

function page(title: string, text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="${PAGE_STYLE}"><h1>${title}</h1><p>${text}</p></body></html>`;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** Listens on `preferredPort` when it is free, else on a port the system picks. */
export async function openLoopbackRedirect(
  server: string,
  state: string,
  preferredPort?: number,
): Promise<LoopbackRedirect> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  let early: { code: string } | { error: Error } | undefined;
  const finish = (outcome: { code: string } | { error: Error }) => {
    if (!settle) {
      early ??= outcome;
      return;
    }
    if ('code' in outcome) settle.resolve(outcome.code);
    else settle.reject(outcome.error);
  };
  const http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const html = (status: number, body: string) =>
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (url.pathname !== '/callback') {
      html(404, page('Not found', 'This is Loom waiting for a login redirect to /callback.'));
      return;
    }
    if (url.searchParams.get('state') !== state) {
      html(
        400,
        page(
          'Login not accepted',
          'The redirect does not belong to this login (its state differs).',
        ),
      );
      return;
    }
    const error = url.searchParams.get('error');
    if (error !== null) {
      const description = url.searchParams.get('error_description');
      html(400, page('Login refused', `The authorization server answered ${error}.`));
      finish({
        error: new McpError(
          'MCP_LOGIN_FAILED',
          `the authorization server refused the login to ${server}: ${error}${description ? ` (${description})` : ''}`,
        ),
      });
      return;
    }
    const code = url.searchParams.get('code');
    if (code === null || code === '') {
      html(400, page('Login not accepted', 'The redirect carries no authorization code.'));
      return;
    }
    html(200, page('Logged in', `Loom is logged in to ${server}. You can close this tab.`));
    finish({ code });
  });
  let port: number;
  try {
    port = await listen(http, preferredPort ?? 0);
  } catch {
    port = await listen(http, 0);
  }
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  return {
    redirectUrl,
    port,
    code({ timeoutMs, signal }) {
      return new Promise<string>((resolve, reject) => {
        const done = () => {
          settle = undefined;
          clearTimeout(timer);
          signal.removeEventListener('abort', aborted);
        };
        const fail = (message: string) => {
          done();
          reject(new McpError('MCP_LOGIN_FAILED', message));
        };
        const timer = setTimeout(
          () =>
            fail(
              `no login redirect reached ${redirectUrl} within ${timeoutMs} ms: run \`loom mcp login ${server}\` again and open the URL it prints`,
            ),
          timeoutMs,
        );
        const aborted = () => fail(`the login to ${server} was cancelled`);
        signal.addEventListener('abort', aborted, { once: true });
        settle = {
          resolve: (code) => {
            done();
            resolve(code);
          },
          reject: (error) => {
            done();
            reject(error);
          },
        };
        if (signal.aborted) aborted();
        else if (early) {
          const outcome = early;
          early = undefined;
          finish(outcome);
        }
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
