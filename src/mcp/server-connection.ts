/**
 * One MCP server, reached with the SDK's Client over its stdio or streamable HTTP transport: a
 * start bounded by the server's start timeout (a server that has not listed its tools by then is
 * closed and reported), tool calls, and a restart at the next call once the server has died or
 * its connection broke. The SDK is imported at the first start, so a runtime with no server
 * never loads it. Every message it makes is cleaned of the credential values the declaration
 * read; a stdio server's process never outlives `close()` or, through `killNow()`, Loom's exit.
 */
import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { redactCredentials } from '../base/credential-redaction.js';
import { errorMessage } from '../base/errors.js';
import { loomVersion } from '../core/version.js';
import { describeHttpConnectError, urlWithoutCredentials } from './connect-error.js';
import {
  McpError,
  type McpFailureReason,
  type McpSandboxLauncher,
  type McpServerDeclaration,
} from './contract.js';
import { expandVariables } from './expand-variables.js';
import {
  connectionAuthProvider,
  type LoomOAuthProvider,
  NeedsLoginError,
} from './oauth-provider.js';
import { storedSecretValues } from './token-store.js';

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

/** The longest a timer can wait: calls have no SDK time limit of their own (the pipeline's applies). */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;
/** The last characters of a stdio server's standard error kept for a failure's message. */
const STDERR_TAIL = 1500;

/** The SDK's transport errors that mean an HTTP connection is gone for the requests it carried. */
const CONNECTION_LOST = /SSE stream disconnected|reconnect|fetch failed|ECONNREFUSED|ECONNRESET/i;

export type ListedTool = Pick<Tool, 'name' | 'description' | 'title' | 'inputSchema'>;

interface Live {
  client: Client;
  transport: Transport & { pid?: number | null };
  /** Set once the connection is gone (the process died, the stream broke): restart next call. */
  lost?: string;
  /** Rejects the calls in flight when an HTTP stream breaks (the SDK would wait for ever). */
  pending: Set<(reason: Error) => void>;
}

export class ServerConnection {
  readonly declaration: McpServerDeclaration;
  private readonly environment: NodeJS.ProcessEnv;
  private secrets: string[] = [];
  private live: Live | undefined;
  private starting: Promise<Live> | undefined;
  private stderrTail = '';
  private closed = false;
  /** The newest transport, started or starting: what `killNow` ends. */
  private transport: Live['transport'] | undefined;

  private readonly sandboxLauncher: McpSandboxLauncher | undefined;
  /** Releases what the sandbox holds for the running process (placeholders). */
  private sandboxEnded: (() => void) | undefined;
  /** The OAuth provider of the newest HTTP transport (none for stdio or an own Authorization). */
  private auth: LoomOAuthProvider | undefined;

  constructor(
    declaration: McpServerDeclaration,
    environment: NodeJS.ProcessEnv,
    sandboxLauncher?: McpSandboxLauncher,
  ) {
    this.declaration = declaration;
    this.environment = environment;
    this.sandboxLauncher = sandboxLauncher;
  }

  get name(): string {
    return this.declaration.name;
  }

  /** Connects and lists the tools, within the start timeout; throws McpStartFailure. */
  async start(): Promise<{ tools: ListedTool[]; serverVersion?: string }> {
    const live = await this.connect();
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await live.client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.declaration.startTimeoutMs,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      await this.drop(live);
      throw new McpStartFailure(
        'error',
        this.clean(`listing its tools failed: ${errorMessage(error)}`),
      );
    }
    const version = live.client.getServerVersion();
    return { tools, ...(version ? { serverVersion: `${version.name} ${version.version}` } : {}) };
  }

  /**
   * Calls a tool; a server that died since (or during an earlier call) is started again first.
   * Throws McpError: `MCP_SERVER_UNAVAILABLE` when it cannot be reached or dies during the call.
   */
  async call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    let live = this.live;
    if (!live || live.lost !== undefined) {
      try {
        live = await this.connect();
      } catch (error) {
        throw new McpError(
          'MCP_SERVER_UNAVAILABLE',
          `MCP server ${this.name} could not be restarted: ${errorMessage(error)}`,
          { cause: error },
        );
      }
    }
    const running = live;
    let rejectLost: (reason: Error) => void = () => {};
    const lost = new Promise<never>((_resolve, reject) => {
      rejectLost = reject;
    });
    running.pending.add(rejectLost);
    try {
      const request = running.client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { signal, timeout: NO_SDK_TIMEOUT_MS },
      );
      return (await Promise.race([request, lost])) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (running.lost !== undefined || this.live !== running) {
        throw new McpError(
          'MCP_SERVER_UNAVAILABLE',
          this.clean(
            `MCP server ${this.name} stopped during the call (${running.lost ?? errorMessage(error)}); it is started again at the next call`,
          ),
          { cause: error },
        );
      }
      throw new McpError('MCP_TOOL_ERROR', this.clean(errorMessage(error)), { cause: error });
    } finally {
      running.pending.delete(rejectLost);
    }
  }

  /** Closes the connection (a stdio server's process ends); later calls fail. Never throws. */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.live ?? (await this.starting?.catch(() => undefined));
    if (live) await this.drop(live);
  }

  /** For a process that is exiting: ends a stdio server's process synchronously. */
  killNow(): void {
    const pid = this.transport?.pid;
    if (typeof pid !== 'number') return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }

  /** The process id of a running stdio server (for tests and `loom mcp list`). */
  get pid(): number | undefined {
    const pid = this.live?.transport.pid;
    return typeof pid === 'number' ? pid : undefined;
  }

  private connect(): Promise<Live> {
    if (this.closed) return Promise.reject(new Error(`MCP server ${this.name} is closed`));
    this.starting ??= this.open().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async open(): Promise<Live> {
    const { value: server, missing, secrets } = expandVariables(this.declaration, this.environment);
    this.secrets = secrets;
    if (missing.length > 0) {
      throw new McpStartFailure(
        'error',
        `environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set (${this.declaration.origin} refers to ${missing.length > 1 ? 'them' : 'it'})`,
      );
    }
    const [{ Client }, transport] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      this.transportFor(server),
    ]);
    this.transport = transport;
    const client = new Client({ name: 'loom', version: loomVersion }, { capabilities: {} });
    const live: Live = { client, transport, pending: new Set() };
    const loseWith = (why: string) => {
      if (live.lost !== undefined) return;
      live.lost = why;
      const error = new Error(why);
      for (const reject of [...live.pending]) reject(error);
    };
    client.onclose = () => loseWith('the connection closed');
    client.onerror = (error) => {
      if (server.transport === 'http' && CONNECTION_LOST.test(errorMessage(error))) {
        loseWith(errorMessage(error));
      }
    };
    const timeoutMs = this.declaration.startTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolveTimeout) => {
      timer = setTimeout(() => resolveTimeout('timeout'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([
        client.connect(transport, { timeout: timeoutMs }).then(() => 'connected' as const),
        timedOut,
      ]);
      if (outcome === 'timeout') {
        await this.drop(live);
        throw new McpStartFailure(
          'timeout',
          this.clean(`it did not start within ${timeoutMs} ms${this.stderrNote()}`),
        );
      }
    } catch (error) {
      if (error instanceof McpStartFailure) throw error;
      await this.drop(live);
      if (this.auth?.needsLogin) {
        throw new McpStartFailure('needs-login', new NeedsLoginError(this.name).message);
      }
      const reason =
        server.transport === 'http'
          ? describeHttpConnectError(server.url, error)
          : errorMessage(error);
      throw new McpStartFailure('error', this.clean(`${reason}${this.stderrNote()}`));
    } finally {
      clearTimeout(timer);
    }
    if (this.closed) {
      await this.drop(live);
      throw new Error(`MCP server ${this.name} is closed`);
    }
    this.live = live;
    return live;
  }

  private async transportFor(server: McpServerDeclaration): Promise<Live['transport']> {
    if (server.transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const cwd = resolve(server.workspace, server.cwd ?? '.');
      let command = server.command;
      let args = server.args;
      let env: Record<string, string> = server.env;
      if (server.sandbox) {
        const decision = this.sandboxLauncher?.(cwd, server.env) ?? {
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
          this.sandboxEnded?.();
          this.sandboxEnded = () => decision.launch.ended();
        }
      }
      const transport = new StdioClientTransport({
        command,
        args,
        env,
        cwd,
        stderr: 'pipe',
      });
      this.stderrTail = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      throw new McpStartFailure('error', this.clean(`its url ${server.url} is not a URL`));
    }
    if (url.username !== '' || url.password !== '') {
      throw new McpStartFailure(
        'error',
        `its url ${urlWithoutCredentials(server.url)} must not embed credentials (user:password@); send them in a header such as Authorization: Bearer \${VARIABLE}`,
      );
    }
    this.auth = connectionAuthProvider(this.name, server.url, server.headers);
    return new StreamableHTTPClientTransport(url, {
      ...(this.auth ? { authProvider: this.auth } : {}),
      requestInit: { headers: server.headers },
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 0,
      },
    });
  }

  private async drop(live: Live): Promise<void> {
    if (this.live === live) this.live = undefined;
    live.lost ??= 'the connection was closed';
    try {
      await live.client.close();
    } catch {
      // Closing a broken connection may fail; the process is ended either way.
    }
    this.sandboxEnded?.();
    this.sandboxEnded = undefined;
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail === '' ? '' : `; its standard error ended with: ${tail}`;
  }

  /** `text` without the credential values this server's declaration read, in any form. */
  private clean(text: string): string {
    return redactCredentials(text, [...this.secrets, ...storedSecretValues()]);
  }
}
