/**
 * One MCP server, reached with the SDK's Client over stdio, streamable HTTP or the older
 * HTTP+SSE: a start bounded by the server's start timeout (a server that has not listed its tools
 * by then is closed and reported), tool calls (plain, or as tasks for a tool that requires it)
 * with progress and an idle and a total time limit, the tool list again when the server says it
 * changed, and a restart at the next call once the server has died or its connection broke.
 * The Client itself is made in client-setup.ts. The SDK is imported at the first start, so a
 * runtime with no server never loads it. Every message it makes is cleaned of the credential
 * values the declaration read; a stdio server's process never outlives `close()` or, through
 * `killNow()`, Loom's exit; closing a streamable HTTP session sends its DELETE first.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  CompleteRequest,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { redactCredentials } from '../base/credential-redaction.js';
import { errorMessage } from '../base/errors.js';
import type { LoomClient } from './client-setup.js';
import { describeHttpConnectError } from './connect-error.js';
import {
  type McpCaller,
  type McpClientSettings,
  McpError,
  type McpRoot,
  type McpSandboxLauncher,
  type McpServerDeclaration,
} from './contract.js';
import { expandVariables } from './expand-variables.js';
import { type LoomOAuthProvider, NeedsLoginError } from './oauth-provider.js';
import { McpStartFailure, openTransport } from './server-transport.js';
import { storedSecretValues } from './token-store.js';

/**
 * Restarts the idle timer of every request `client` has in flight, as a progress notification
 * does. The SDK offers no public way: its Protocol keeps the timers in `_timeoutInfo` and
 * restarts one with `_resetTimeout`; if a later SDK renames them this does nothing (and a form
 * slower than `mcp.callTimeoutMs` cancels its call, as before).
 */
function restartIdleTimers(client: Client): void {
  const protocol = client as unknown as {
    _timeoutInfo?: unknown;
    _resetTimeout?: (messageId: number) => boolean;
  };
  const timers = protocol._timeoutInfo;
  if (!(timers instanceof Map) || typeof protocol._resetTimeout !== 'function') return;
  for (const messageId of [...timers.keys()]) {
    try {
      protocol._resetTimeout.call(client, messageId);
    } catch {
      // Past mcp.maxCallMs: its own timer ends the call.
    }
  }
}

/** The JSON-RPC error code of the SDK's own request timeout. */
const REQUEST_TIMEOUT = -32001;

/** The SDK's transport errors that mean an HTTP connection is gone for the requests it carried. */
const CONNECTION_LOST = /SSE stream disconnected|reconnect|fetch failed|ECONNREFUSED|ECONNRESET/i;

export type ListedTool = Pick<
  Tool,
  'name' | 'description' | 'title' | 'inputSchema' | 'execution' | 'annotations'
>;

/** What a call reports while it runs: a progress notification, or a task's status. */
export interface CallProgress {
  progress?: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  signal: AbortSignal;
  /** Call it as a task (the tool's `execution.taskSupport` is `required`). */
  task?: boolean;
  /** Receives each progress notification and task status. Must not throw. */
  onProgress?: (update: CallProgress) => void;
  /** The agent the call is for: the server's elicitations and sampling requests go to it. */
  caller?: McpCaller;
}

interface Live {
  client: Client;
  owner: LoomClient;
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
  /** The current start's standard error tail (a stdio server's). */
  private stderrTail: () => string = () => '';
  private closed = false;
  /** The newest transport, started or starting: what `killNow` ends. */
  private transport: Live['transport'] | undefined;

  private readonly sandboxLauncher: McpSandboxLauncher | undefined;
  /** Releases what the sandbox holds for the running process (placeholders). */
  private sandboxEnded: (() => void) | undefined;
  /** The OAuth provider of the newest HTTP transport (none for stdio or an own Authorization). */
  private auth: LoomOAuthProvider | undefined;
  private readonly settings: McpClientSettings;
  private roots: readonly McpRoot[];
  /** The tool list being fetched again after `notifications/tools/list_changed`. */
  private refreshing: Promise<void> | undefined;
  /** The last tool list as JSON: a change notice that changes nothing is not passed on. */
  private listedJson = '';
  /**
   * Receives the server's tools each time it says they changed (listed again in full). Set by
   * the layer that gave them to agents; must not throw.
   */
  onToolsChanged: ((tools: ListedTool[]) => void) | undefined;
  /**
   * The server said its prompts or resources changed (catalog-changes.ts follows it); resolves
   * once they are listed again, which a call the change came during waits for.
   */
  onCatalogChanged: ((kind: 'prompts' | 'resources') => Promise<void>) | undefined;
  private catalogChanging: Promise<void> | undefined;
  /**
   * The agent a server's request goes to when no call is in flight (the only root session);
   * set by the layer that gave the tools. Elicitations only: sampling needs a call.
   */
  idleCaller: (() => McpCaller | undefined) | undefined;
  /** An elicitation came with nobody to answer it (declined): the layer reports it. */
  onUnanswered: ((message: string) => void) | undefined;
  /** The calls in flight, oldest first: a server's request goes to the newest one's agent. */
  private readonly callers: McpCaller[] = [];

  constructor(
    declaration: McpServerDeclaration,
    environment: NodeJS.ProcessEnv,
    settings: McpClientSettings,
    sandboxLauncher?: McpSandboxLauncher,
  ) {
    this.declaration = declaration;
    this.environment = environment;
    this.settings = settings;
    this.roots = settings.roots;
    this.sandboxLauncher = sandboxLauncher;
  }

  get name(): string {
    return this.declaration.name;
  }

  /** Connects and lists the tools, within the start timeout; throws McpStartFailure. */
  async start(): Promise<{ tools: ListedTool[]; serverVersion?: string }> {
    const live = await this.connect();
    let tools: ListedTool[];
    try {
      tools = await this.listTools(live);
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

  /** Whether the server can run tools as tasks (`tasks.requests.tools.call`). */
  get runsTasks(): boolean {
    return this.live?.client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
  }

  /**
   * Offers `roots` from now on and, when they differ, tells a connected server
   * (`notifications/roots/list_changed`). Never throws.
   */
  async updateRoots(roots: readonly McpRoot[]): Promise<void> {
    const same =
      roots.length === this.roots.length &&
      roots.every((root, index) => root.uri === this.roots[index]?.uri);
    this.roots = roots;
    if (same || !this.live || this.live.lost !== undefined) return;
    await this.live.client.sendRootsListChanged().catch(() => undefined);
  }

  /**
   * Calls a tool; a server that died since (or during an earlier call) is started again first.
   * Throws McpError: `MCP_SERVER_UNAVAILABLE` when it cannot be reached or dies during the call,
   * `MCP_CALL_TIMEOUT` when it sent nothing for `mcp.callTimeoutMs` or ran past `mcp.maxCallMs`.
   * A tool list the call made the server change is fetched again before it returns.
   */
  async call(tool: string, args: unknown, options: CallOptions): Promise<CallToolResult> {
    const { signal } = options;
    const live = await this.liveConnection();
    const running = live;
    let rejectLost: (reason: Error) => void = () => {};
    const lost = new Promise<never>((_resolve, reject) => {
      rejectLost = reject;
    });
    running.pending.add(rejectLost);
    const { caller } = options;
    if (caller) this.callers.push(caller);
    try {
      const request = options.task
        ? this.callAsTask(running, tool, args, options)
        : running.client.callTool(
            { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
            undefined,
            this.requestOptions(options),
          );
      const result = (await Promise.race([request, lost])) as CallToolResult;
      await this.refreshing;
      await this.catalogChanging;
      return result;
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
      if ((error as { code?: unknown }).code === REQUEST_TIMEOUT) {
        throw new McpError(
          'MCP_CALL_TIMEOUT',
          `MCP server ${this.name} was cancelled: ${this.clean(errorMessage(error))} (it may go ${this.settings.callTimeoutMs} ms without a word, mcp.callTimeoutMs, and take ${this.settings.maxCallMs} ms in all, mcp.maxCallMs)`,
          { cause: error },
        );
      }
      throw new McpError('MCP_TOOL_ERROR', this.clean(errorMessage(error)), { cause: error });
    } finally {
      running.pending.delete(rejectLost);
      if (caller) this.callers.splice(this.callers.lastIndexOf(caller), 1);
    }
  }

  /**
   * Who a server's request is for: the newest call in flight (an elicitation or sampling
   * request carries no tie to the call it serves over stdio), else the idle caller.
   */
  private callerNow(): McpCaller | undefined {
    return this.callers.at(-1) ?? this.idleCaller?.();
  }

  /** The SDK options of one request: progress token, idle and total time limits, the signal. */
  private requestOptions(options: CallOptions) {
    const { onProgress } = options;
    return {
      signal: options.signal,
      timeout: this.settings.callTimeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: this.settings.maxCallMs,
      // Passing `onprogress` is what makes the SDK send a progressToken.
      onprogress: (update: { progress: number; total?: number; message?: string }) =>
        onProgress?.({
          progress: update.progress,
          ...(update.total !== undefined ? { total: update.total } : {}),
          ...(update.message !== undefined ? { message: update.message } : {}),
        }),
    };
  }

  /**
   * A task-required tool: `tools/call` with `task` creates the task, `tasks/get` polls it (each
   * status is progress), `tasks/result` fetches its result; an abort sends `tasks/cancel`.
   */
  private async callAsTask(
    live: Live,
    tool: string,
    args: unknown,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const { signal, onProgress } = options;
    const tasks = live.client.experimental.tasks;
    let taskId: string | undefined;
    let lastSaid: string | undefined;
    const cancel = () => {
      if (taskId !== undefined) void tasks.cancelTask(taskId).catch(() => undefined);
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const stream = tasks.callToolStream(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { ...this.requestOptions(options), task: {} },
      );
      for await (const message of stream) {
        switch (message.type) {
          case 'taskCreated':
            taskId = message.task.taskId;
            if (signal.aborted) cancel();
            lastSaid = `task ${taskId} ${message.task.status}`;
            onProgress?.({ message: lastSaid });
            break;
          case 'taskStatus': {
            // Each poll answers; only a status that changed is progress.
            const said = message.task.statusMessage ?? `task ${message.task.status}`;
            if (said !== lastSaid) onProgress?.({ message: said });
            lastSaid = said;
            break;
          }
          case 'result':
            return message.result as CallToolResult;
          case 'error':
            throw message.error;
        }
      }
      throw new Error(`task ${taskId ?? '(not created)'} ended without a result`);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * `work` (a form the human fills, a sampling request) keeps the server's calls in flight from
   * counting as silent: the server is waiting on Loom, so `mcp.callTimeoutMs` must not cancel
   * them. Their idle timers restart every half limit while it runs and once when it ends;
   * `mcp.maxCallMs` still bounds each call.
   */
  private async holdingCalls<T>(live: Live | undefined, work: Promise<T>): Promise<T> {
    if (!live) return work;
    const { client } = live;
    const restart = () => restartIdleTimers(client);
    const timer = setInterval(restart, Math.max(10, Math.floor(this.settings.callTimeoutMs / 2)));
    timer.unref();
    try {
      return await work;
    } finally {
      clearInterval(timer);
      restart();
    }
  }

  /** Every page of the server's tools. */
  private async listTools(live: Live): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await live.client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.declaration.startTimeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.listedJson = JSON.stringify(tools);
    return tools;
  }

  /** `notifications/tools/list_changed`: lists the tools again and hands them on. */
  private toolsChanged(live: Live): void {
    const previous = this.refreshing ?? Promise.resolve();
    const refresh = previous
      .then(async () => {
        if (live.lost !== undefined) return undefined;
        const before = this.listedJson;
        const tools = await this.listTools(live);
        return this.listedJson === before ? undefined : tools;
      })
      .then(
        (tools) => {
          if (tools && this.live === live) this.onToolsChanged?.(tools);
        },
        () => undefined,
      );
    const tracked: Promise<void> = refresh.finally(() => {
      if (this.refreshing === tracked) this.refreshing = undefined;
    });
    this.refreshing = tracked;
  }

  /** Whether the connected server declared `resources` / `prompts` in its capabilities. */
  get offersResources(): boolean {
    return this.live?.client.getServerCapabilities()?.resources !== undefined;
  }

  get offersPrompts(): boolean {
    return this.live?.client.getServerCapabilities()?.prompts !== undefined;
  }

  /** Whether it declared `completions` (argument completion, `completion/complete`). */
  get offersCompletions(): boolean {
    return this.live?.client.getServerCapabilities()?.completions !== undefined;
  }

  /** `completion/complete` of a prompt's argument (or a template's variable); throws McpError. */
  complete(params: CompleteRequest['params'], signal?: AbortSignal): Promise<string[]> {
    return this.request('completion/complete', signal, async (client, options) => {
      const result = await client.complete(params, options);
      return result.completion.values;
    });
  }

  /** Every page of the server's resources (`resources/list`); throws McpError. */
  listResources(signal?: AbortSignal): Promise<Resource[]> {
    return this.pages('resources/list', signal, async (client, params, options) => {
      const page = await client.listResources(params, options);
      return { items: page.resources, next: page.nextCursor };
    });
  }

  /** Every page of the server's resource templates (`resources/templates/list`). */
  listResourceTemplates(signal?: AbortSignal): Promise<ResourceTemplate[]> {
    return this.pages('resources/templates/list', signal, async (client, params, options) => {
      const page = await client.listResourceTemplates(params, options);
      return { items: page.resourceTemplates, next: page.nextCursor };
    });
  }

  /** Every page of the server's prompts (`prompts/list`). */
  listPrompts(signal?: AbortSignal): Promise<Prompt[]> {
    return this.pages('prompts/list', signal, async (client, params, options) => {
      const page = await client.listPrompts(params, options);
      return { items: page.prompts, next: page.nextCursor };
    });
  }

  /** `resources/read` of `uri`; throws McpError. */
  readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.request('resources/read', signal, (client, options) =>
      client.readResource({ uri }, options),
    );
  }

  /** `prompts/get` of `name` with its arguments; throws McpError. */
  getPrompt(
    name: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    return this.request('prompts/get', signal, (client, options) =>
      client.getPrompt({ name, arguments: args }, options),
    );
  }

  private async pages<T>(
    method: string,
    signal: AbortSignal | undefined,
    fetch: (
      client: Client,
      params: { cursor?: string },
      options: { signal?: AbortSignal; timeout: number },
    ) => Promise<{ items: T[]; next?: string | undefined }>,
  ): Promise<T[]> {
    return this.request(method, signal, async (client, options) => {
      const items: T[] = [];
      let cursor: string | undefined;
      do {
        const page = await fetch(client, cursor === undefined ? {} : { cursor }, options);
        items.push(...page.items);
        cursor = page.next;
      } while (cursor !== undefined);
      return items;
    });
  }

  /**
   * One request of the server (started again first when it died), bounded by
   * `mcp.callTimeoutMs`. Throws McpError (`MCP_SERVER_UNAVAILABLE`, `MCP_CALL_TIMEOUT`,
   * `MCP_TOOL_ERROR` for the server's own error), its message naming the server and method.
   */
  /** The live connection, or a new one when the server died or its connection broke. */
  private async liveConnection(): Promise<Live> {
    if (this.live && this.live.lost === undefined) return this.live;
    try {
      return await this.connect();
    } catch (error) {
      throw new McpError(
        'MCP_SERVER_UNAVAILABLE',
        `MCP server ${this.name} could not be restarted: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  private async request<T>(
    method: string,
    signal: AbortSignal | undefined,
    send: (client: Client, options: { signal?: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const live = await this.liveConnection();
    try {
      return await send(live.client, {
        ...(signal ? { signal } : {}),
        timeout: this.settings.callTimeoutMs,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const code =
        (error as { code?: unknown }).code === REQUEST_TIMEOUT
          ? 'MCP_CALL_TIMEOUT'
          : live.lost !== undefined
            ? 'MCP_SERVER_UNAVAILABLE'
            : 'MCP_TOOL_ERROR';
      throw new McpError(
        code,
        this.clean(`MCP server ${this.name} answered ${method} with: ${errorMessage(error)}`),
        { cause: error },
      );
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
    if (server.transport === 'invalid') throw new McpStartFailure('error', server.problem);
    const [{ createClient }, { answerElicitation }, { answerSampling }, opened] = await Promise.all(
      [
        import('./client-setup.js'),
        import('./elicitation.js'),
        import('./sampling.js'),
        openTransport({
          name: this.name,
          server,
          sandboxLauncher: this.sandboxLauncher,
          clean: (text) => this.clean(text),
        }),
      ],
    );
    const { transport } = opened;
    this.transport = transport;
    this.auth = opened.auth;
    this.stderrTail = opened.stderrTail;
    if (opened.sandboxEnded) {
      this.sandboxEnded?.();
      this.sandboxEnded = opened.sandboxEnded;
    }
    let live: Live | undefined;
    const owner = createClient({
      roots: () => this.roots,
      onToolsChanged: () => {
        if (live) this.toolsChanged(live);
      },
      onCatalogChanged: (kind) => {
        if (live && this.live === live) this.catalogChanging = this.onCatalogChanged?.(kind);
      },
      elicit: (request, signal) => {
        const caller = this.callerNow();
        if (!caller) this.onUnanswered?.(request.message);
        return this.holdingCalls(live, answerElicitation(this.name, caller, request, signal));
      },
      sample: (request, signal) =>
        this.holdingCalls(
          live,
          answerSampling(this.name, server.sampling, this.callers.at(-1), request, signal),
        ).catch((error: unknown) => {
          throw new Error(this.clean(errorMessage(error)));
        }),
    });
    const { client } = owner;
    live = { client, owner, transport, pending: new Set() };
    const loseWith = (why: string) => {
      if (!live || live.lost !== undefined) return;
      live.lost = why;
      const error = new Error(why);
      for (const reject of [...live.pending]) reject(error);
    };
    client.onclose = () => loseWith('the connection closed');
    client.onerror = (error) => {
      if (server.transport !== 'stdio' && CONNECTION_LOST.test(errorMessage(error))) {
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
        server.transport === 'stdio'
          ? errorMessage(error)
          : describeHttpConnectError(server.url, error);
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

  private async drop(live: Live): Promise<void> {
    if (this.live === live) this.live = undefined;
    const wasLive = live.lost === undefined;
    live.lost ??= 'the connection was closed';
    const transport = live.transport as Live['transport'] & {
      sessionId?: string;
      terminateSession?: () => Promise<void>;
    };
    if (wasLive && transport.sessionId !== undefined && transport.terminateSession) {
      // Streamable HTTP: the DELETE that ends the session, bounded by the start timeout.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        new Promise((resolveWait) => {
          timer = setTimeout(resolveWait, this.declaration.startTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    try {
      await live.client.close();
    } catch {
      // Closing a broken connection may fail; the process is ended either way.
    }
    live.owner.dispose();
    this.sandboxEnded?.();
    this.sandboxEnded = undefined;
  }

  private stderrNote(): string {
    const tail = this.stderrTail().trim();
    return tail === '' ? '' : `; its standard error ended with: ${tail}`;
  }

  /** `text` without the credential values this server's declaration read, in any form. */
  private clean(text: string): string {
    return redactCredentials(text, [...this.secrets, ...storedSecretValues()]);
  }
}
