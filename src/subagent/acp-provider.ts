/**
 * The `acp` subagent provider: each child is one agent process speaking the Agent Client Protocol
 * over stdio (`initialize`, `session/new` in the parent's workspace, `session/prompt`), by
 * default Loom itself (`loom acp`). What the agent streams becomes the child's local session log,
 * its final text the answer; its permission requests are answered by the parent's rules. Its
 * capabilities are honest: no output schema, depth limit, tool filter, persona or continuation,
 * refused before any process starts. Cancelling sends `session/cancel`, then kills the process
 * group after the grace period; a run settles only once its process is gone.
 */
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { errorMessage } from '../core/errors.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { TurnEndReason, TurnError } from '../core/session-events.js';
import { loomVersion } from '../core/version.js';
import type { Usage } from '../llm/contract.js';
import { AcpChildLog, turnEndOf, usageOf } from './acp-child-log.js';
import { answerPermission } from './acp-permissions.js';
import { type AgentProcess, spawnAgentProcess } from './acp-process.js';
import {
  type ChildDescriptor,
  type SubagentCapabilities,
  SubagentError,
  type SubagentProvider,
  type SubagentResult,
  type SubagentRun,
  type SubagentStartRequest,
} from './contract.js';
import { checkDepth, DEFAULT_MAX_DEPTH } from './in-process-provider.js';

/** How long a cancelled child may take to stop before its process group is killed. */
export const DEFAULT_ACP_CANCEL_GRACE_MS = 3000;

/** The `_meta` key of `session/new` that carries a child's extra instructions to a Loom agent. */
export const INSTRUCTIONS_META_KEY = 'loom/instructions';

export interface AcpProviderOptions {
  name: string;
  runtime: AgentRuntime;
  /** The agent's command; absent: Loom itself (`loom acp`), which can also take a model. */
  command?: string;
  args?: readonly string[];
  /** Variables added to the agent's environment (it inherits Loom's). Never logged. */
  env?: Readonly<Record<string, string>>;
  /** The model a Loom child runs when the request names none; default: the child's own choice. */
  defaultModel?: string;
  /** Depth limit when the request names none; default 3. */
  maxDepth?: number;
  /** Default 3000 ms. */
  cancelGraceMs?: number;
}

const capabilities: SubagentCapabilities = {
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
  inheritsParentContext: false,
  // The agent's updates do not tell waiting on its model from running its own tools.
  activity: false,
};

/** `bin/loom`: two folders up from src/subagent, dist/subagent and dist/bundle alike. */
const loomBin = fileURLToPath(new URL('../../bin/loom', import.meta.url));

/** Logs of children still running: their open turns are closed if the process exits now. */
const openChildLogs = new Set<AcpChildLog>();
let exitHookInstalled = false;

function abandonOpenLogsOnExit(): void {
  for (const log of openChildLogs) log.abandon();
}

export function createAcpProvider(options: AcpProviderOptions): SubagentProvider {
  return {
    name: options.name,
    capabilities,
    start: (request) => startChild(options, request),
  };
}

interface Launch {
  command: string;
  args: string[];
  /** Whether the agent is Loom: it takes `--model` and instructions in `_meta`. */
  loom: boolean;
}

function launchOf(options: AcpProviderOptions, request: SubagentStartRequest): Launch {
  if (options.command === undefined) {
    const model = request.model ?? request.defaultModel ?? options.defaultModel;
    return {
      command: process.execPath,
      args: [loomBin, 'acp', ...(model !== undefined ? ['--model', model] : [])],
      loom: true,
    };
  }
  // Only a model the caller named is refused; a default (`defaultModel`) is the agent's to choose.
  if (request.model !== undefined) {
    throw new SubagentError(
      'UNSUPPORTED_CAPABILITY',
      `subagent provider ${options.name} runs ${options.command}, which chooses its own model; it cannot take model ${request.model}`,
    );
  }
  return { command: options.command, args: [...(options.args ?? [])], loom: false };
}

function startChild(options: AcpProviderOptions, request: SubagentStartRequest): SubagentRun {
  if (request.continuable) {
    throw new SubagentError(
      'UNSUPPORTED_CAPABILITY',
      `subagent provider ${options.name} runs one-shot children; it cannot keep one to message later (run it in the foreground)`,
    );
  }
  const depth = checkDepth(request, options.maxDepth ?? DEFAULT_MAX_DEPTH);
  const launch = launchOf(options, request);
  const { runtime } = options;
  const log = runtime.store.create({
    cwd: runtime.cwd,
    parentSession: request.parent.sessionId,
    delegationDepth: depth,
  });
  const descriptor: ChildDescriptor = {
    provider: options.name,
    description: request.description ?? '',
    continuable: false,
  };
  if (request.model !== undefined) descriptor.model = request.model;
  if (request.instructions !== undefined) descriptor.instructions = request.instructions;
  log.append('subagent/descriptor', descriptor);
  const child = new AcpChildLog(log, request.prompt, `acp:${options.name}`);
  openChildLogs.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', abandonOpenLogsOnExit);
  }
  let agent: AgentProcess;
  try {
    agent = spawnAgentProcess({
      command: launch.command,
      args: launch.args,
      cwd: runtime.cwd,
      env: {
        ...process.env,
        ...options.env,
        ...(launch.loom ? { LOOM_HOME: runtime.home } : {}),
      },
    });
  } catch (error) {
    openChildLogs.delete(child);
    child.finish('error', { message: `could not start ${launch.command}: ${errorMessage(error)}` });
    throw error;
  }
  const run = new AcpChildRun(options, request, launch, child, agent);
  return {
    id: child.sessionId,
    result: run.result,
    cancel: (reason) => run.cancel(reason ?? 'cancelled'),
    dispose: () => run.cancel('the subagent was released'),
  };
}

class AcpChildRun {
  readonly result: Promise<SubagentResult>;
  private readonly options: AcpProviderOptions;
  private readonly child: AcpChildLog;
  private readonly agent: AgentProcess;
  private readonly controller = new AbortController();
  private connection: acp.ClientConnection | undefined;
  private remoteSessionId: string | undefined;
  private cancelled: string | undefined;
  private settled = false;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    options: AcpProviderOptions,
    request: SubagentStartRequest,
    launch: Launch,
    child: AcpChildLog,
    agent: AgentProcess,
  ) {
    this.options = options;
    this.child = child;
    this.agent = agent;
    const onAbort = () => this.cancel('the parent cancelled this subagent');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) queueMicrotask(onAbort);
    this.result = this.drive(request, launch).finally(() =>
      request.signal?.removeEventListener('abort', onAbort),
    );
  }

  cancel(reason: string): void {
    if (this.settled || this.cancelled !== undefined) return;
    this.cancelled = reason;
    this.controller.abort(reason);
    const { connection, remoteSessionId } = this;
    if (!connection || !remoteSessionId) {
      // Nothing runs remotely yet: there is no turn to wind down.
      this.agent.kill();
      return;
    }
    connection.agent.notify('session/cancel', { sessionId: remoteSessionId }).catch(() => {});
    this.graceTimer = setTimeout(
      () => this.agent.kill(),
      this.options.cancelGraceMs ?? DEFAULT_ACP_CANCEL_GRACE_MS,
    );
  }

  private async drive(request: SubagentStartRequest, launch: Launch): Promise<SubagentResult> {
    const { child } = this;
    let reason: TurnEndReason;
    let error: TurnError | undefined;
    let usage: Usage = { input: 0, output: 0 };
    let failure: unknown;
    try {
      // Loaded here, not at start-up: a command that starts no ACP child never loads the protocol.
      const sdk = await import('@agentclientprotocol/sdk');
      const app = sdk
        .client({ name: 'loom-subagent' })
        .onNotification('session/update', ({ params }) => child.record(params.update))
        .onRequest('session/request_permission', ({ params }) =>
          answerPermission(
            {
              context: this.permissionContext(request),
              agentId: child.sessionId,
              turnId: child.turnId,
              signal: this.controller.signal,
            },
            params,
          ),
        );
      const connection = app.connect(sdk.ndJsonStream(this.agent.input, this.agent.output));
      this.connection = connection;
      const { agentInfo } = await this.untilExit(
        connection.agent.request('initialize', {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: {},
          clientInfo: { name: 'loom', version: loomVersion },
        }),
      );
      const instructions = request.instructions;
      const session = await this.untilExit(
        connection.agent.request('session/new', {
          cwd: this.options.runtime.cwd,
          mcpServers: [],
          ...(instructions && launch.loom
            ? { _meta: { [INSTRUCTIONS_META_KEY]: instructions } }
            : {}),
        }),
      );
      this.remoteSessionId = session.sessionId;
      child.recordRemoteSession(this.options.name, session.sessionId, agentInfo?.name);
      if (this.cancelled !== undefined) throw new Error(this.cancelled);
      const prompt: acp.ContentBlock[] = [{ type: 'text', text: request.prompt }];
      // An agent other than Loom has no place for extra instructions but the prompt itself.
      if (instructions && !launch.loom) prompt.unshift({ type: 'text', text: instructions });
      const response = await this.untilExit(
        connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt }),
      );
      ({ reason, error } = turnEndOf(response.stopReason));
      usage = usageOf(response);
    } catch (thrown) {
      reason = 'error';
      failure = thrown;
    }
    this.connection?.close();
    await this.agent.end(this.options.cancelGraceMs ?? DEFAULT_ACP_CANCEL_GRACE_MS);
    // Composed once the agent is gone, so its standard error is complete.
    if (failure !== undefined) error = { message: this.failureOf(launch, failure) };
    if (this.cancelled !== undefined && reason !== 'completed') {
      reason = 'aborted';
      error = undefined;
    }
    clearTimeout(this.graceTimer);
    this.settled = true;
    openChildLogs.delete(child);
    const output = child.finish(reason, error, usage);
    return resultOf({ sessionId: child.sessionId, output, usage }, reason, error, this.cancelled);
  }

  /**
   * Where the parent's rules and asker are found: its agent's scope while it is live (an editor's
   * session provides its asker there), else the runtime's root.
   */
  private permissionContext(request: SubagentStartRequest) {
    const { runtime } = this.options;
    const parent = request.parent.sessionId;
    return (parent !== null ? runtime.find(parent)?.context : undefined) ?? runtime.root;
  }

  /** `work`, unless the agent exits first (then a rejection naming its exit). */
  private untilExit<T>(work: Promise<T>): Promise<T> {
    return Promise.race([
      work,
      this.agent.exited.then((exit) => {
        throw new Error(
          `the agent exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`,
        );
      }),
    ]);
  }

  private failureOf(launch: Launch, thrown: unknown): string {
    const stderr = this.agent.stderrTail();
    const command = launch.loom ? 'loom acp' : launch.command;
    return `${command}: ${errorMessage(thrown)}${stderr ? `\n${stderr}` : ''}`;
  }
}

function resultOf(
  base: Pick<SubagentResult, 'sessionId' | 'output' | 'usage'>,
  reason: TurnEndReason,
  error: TurnError | undefined,
  cancelled: string | undefined,
): SubagentResult {
  if (reason === 'completed') return { ...base, stopReason: 'completed' };
  if (reason === 'aborted' || reason === 'interrupted') {
    return {
      ...base,
      stopReason: 'cancelled',
      diagnostic: cancelled ?? 'the subagent was cancelled',
    };
  }
  const diagnostic =
    reason === 'max-tokens'
      ? 'the remote agent stopped at its output token limit'
      : (error?.message ?? 'the remote agent stopped with an error');
  return { ...base, stopReason: 'error', diagnostic };
}
