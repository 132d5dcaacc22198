/**
 * The transport of one start of an MCP server: a stdio process (in the sandbox when the
 * declaration asks, its standard error's tail kept for a failure's message), streamable HTTP,
 * or the older HTTP+SSE, with the OAuth provider an HTTP server may need. The SDK's transport
 * modules are imported only for the kind in use. A failure is McpStartFailure, its message
 * cleaned by the caller's `clean`.
 */
import { resolve } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { urlWithoutCredentials } from './connect-error.js';
import type { McpFailureReason, McpSandboxLauncher, McpServerDeclaration } from './contract.js';
import { connectionAuthProvider, type LoomOAuthProvider } from './oauth-provider.js';

/** A start that failed: the server's tools are absent; `message` names what went wrong. */
export class McpStartFailure extends Error {
  constructor(
    readonly reason: McpFailureReason,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The last characters of a stdio server's standard error kept for a failure's message. */
const STDERR_TAIL = 1500;

export interface OpenedTransport {
  transport: Transport;
  /** Lets go of the sandbox a stdio server runs in (its placeholders); absent outside one. */
  sandboxEnded?: () => void;
  /** The OAuth provider of an HTTP server, when it may need one. */
  auth?: LoomOAuthProvider;
  /** The tail of a stdio server's standard error so far ('' for HTTP). */
  stderrTail(): string;
}

export interface TransportRequest {
  /** The server's name, for its stored login. */
  name: string;
  /** The declaration with its variables expanded. */
  server: McpServerDeclaration;
  sandboxLauncher: McpSandboxLauncher | undefined;
  /** Removes credential values from a message. */
  clean: (text: string) => string;
}

export async function openTransport(request: TransportRequest): Promise<OpenedTransport> {
  const { server } = request;
  if (server.transport === 'stdio') return stdioTransport(server, request.sandboxLauncher);
  if (server.transport === 'invalid') throw new McpStartFailure('error', server.problem);
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new McpStartFailure('error', request.clean(`its url ${server.url} is not a URL`));
  }
  if (url.username !== '' || url.password !== '') {
    throw new McpStartFailure(
      'error',
      `its url ${urlWithoutCredentials(server.url)} must not embed credentials (user:password@); send them in a header such as Authorization: Bearer \${VARIABLE}`,
    );
  }
  const auth = connectionAuthProvider(request.name, server.url, server.headers);
  const authProvider = auth ? { authProvider: auth } : {};
  const opened = { ...(auth ? { auth } : {}), stderrTail: () => '' };
  if (server.transport === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const transport = new SSEClientTransport(url, {
      ...authProvider,
      requestInit: { headers: server.headers },
    });
    return { ...opened, transport };
  }
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const transport = new StreamableHTTPClientTransport(url, {
    ...authProvider,
    requestInit: { headers: server.headers },
    reconnectionOptions: {
      initialReconnectionDelay: 100,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 0,
    },
  });
  return { ...opened, transport };
}

async function stdioTransport(
  server: Extract<McpServerDeclaration, { transport: 'stdio' }>,
  sandboxLauncher: McpSandboxLauncher | undefined,
): Promise<OpenedTransport> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const cwd = resolve(server.workspace, server.cwd ?? '.');
  let command = server.command;
  let args = server.args;
  let env: Record<string, string> = server.env;
  let sandboxEnded: (() => void) | undefined;
  if (server.sandbox) {
    const decision = sandboxLauncher?.(cwd, server.env) ?? {
      kind: 'refused' as const,
      message: 'no sandbox is available in this runtime',
    };
    if (decision.kind === 'refused') {
      throw new McpStartFailure('error', `sandbox: true, but ${decision.message}`);
    }
    if (decision.kind === 'sandboxed') {
      const [launcher = command, ...launcherArgs] = decision.launch.launcher;
      command = launcher;
      args = [...launcherArgs, server.command, ...server.args];
      env = { ...server.env, TMPDIR: decision.launch.env.TMPDIR ?? '/tmp' };
      sandboxEnded = () => decision.launch.ended();
    }
  }
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { transport, ...(sandboxEnded ? { sandboxEnded } : {}), stderrTail: () => tail };
}
