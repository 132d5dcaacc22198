/**
 * The `acp` subagent provider: each child is one agent process speaking the Agent Client Protocol
 * over stdio (`initialize`, `session/new` in the parent's workspace, `session/prompt`), by
 * default Loom itself (`loom acp`). What the agent streams becomes the child's local session log,
 * its final text the answer; its permission requests are answered by the parent's rules. Its
 * capabilities are honest: a provider that runs Loom itself (no command) takes an output schema,
 * a tool filter and a persona, sent in `session/new` `_meta` to the child, which enforces them and
 * must say so in `initialize` (see acp/loom-child-meta.ts); any other agent takes none of them,
 * and no agent a depth limit or continuation, refused before any process starts. Cancelling
 * sends `session/cancel`, then kills the process group after the grace period; a run settles
 * only once its process is gone.
 */
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import {
  advertisedChildCapabilities,
  CHILD_CAPABILITIES_META_KEY,
  INSTRUCTIONS_META_KEY,
  type LoomChildCapabilities,
  OUTPUT_SCHEMA_META_KEY,
  PERSONA_META_KEY,
  STRUCTURED_OUTPUT_META_KEY,
  TOOL_FILTER_META_KEY,
} from '../acp/loom-child-meta.js';
import { errorMessage } from '../base/errors.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { TurnEndReason, TurnError } from '../core/session-events.js';
import { loomVersion } from '../core/version.js';
import type { JsonSchema, Usage } from '../llm/contract.js';
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
import { deliveredValueChecker } from './structured-output/delivered-value.js';
import { assertSupportedSchema, cloneSchema } from './structured-output/output-schema.js';

/** How long a cancelled child may take to stop before its process group is killed. */
export const DEFAULT_ACP_CANCEL_GRACE_MS = 3000;

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

/**
 * A provider without a command runs Loom itself, which takes a child's schema, tool filter and
 * persona (and says so in `initialize`). Whether another command is Loom is known only once it
 * answers `initialize`, too late for a refusal before anything starts: it gets none of them.
 */
function capabilitiesOf(options: AcpProviderOptions): SubagentCapabilities {
  const loom = options.command === undefined;
  return {
    outputSchema: loom,
    depthLimit: false,
    toolFilter: loom,
    persona: loom,
    inheritsParentContext: false,
    // The agent's updates do not tell waiting on its model from running its own tools.
    activity: false,
    workspace: false,
  };
}

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
    capabilities: capabilitiesOf(options),
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
  const schema = request.outputSchema
    ? assertSupportedSchema(cloneSchema(request.outputSchema))
    : undefined;
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
  if (request.toolFilter !== undefined) descriptor.toolFilter = [...request.toolFilter];
  if (request.persona !== undefined) descriptor.persona = request.persona;
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
  const run = new AcpChildRun(options, request, launch, child, agent, schema);
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
  /** The request's checked output schema, if it has one. */
  private readonly schema: JsonSchema | undefined;

  constructor(
    options: AcpProviderOptions,
    request: SubagentStartRequest,
    launch: Launch,
    child: AcpChildLog,
    agent: AgentProcess,
    schema: JsonSchema | undefined,
  ) {
    this.options = options;
    this.child = child;
    this.agent = agent;
    this.schema = schema;
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
    let structured: { value: unknown } | undefined;
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
      const { agentInfo, agentCapabilities } = await this.untilExit(
        connection.agent.request('initialize', {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: {},
          clientInfo: { name: 'loom', version: loomVersion },
        }),
      );
      const offered = advertisedChildCapabilities(agentCapabilities);
      const contract = this.contractFor(request, offered, agentInfo?.name);
      const session = await this.untilExit(
        connection.agent.request('session/new', {
          cwd: this.options.runtime.cwd,
          mcpServers: [],
          ...(contract ? { _meta: contract } : {}),
        }),
      );
      this.remoteSessionId = session.sessionId;
      child.recordRemoteSession(this.options.name, session.sessionId, agentInfo?.name);
      if (this.cancelled !== undefined) throw new Error(this.cancelled);
      const prompt: acp.ContentBlock[] = [{ type: 'text', text: request.prompt }];
      const { instructions } = request;
      // An agent other than Loom has no place for extra instructions but the prompt itself.
      if (instructions && !offered.instructions)
        prompt.unshift({ type: 'text', text: instructions });
      const response = await this.untilExit(
        connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt }),
      );
      ({ reason, error } = turnEndOf(response.stopReason));
      usage = usageOf(response);
      if (reason === 'completed' && this.schema) {
        const answer = deliveredAnswer(this.schema, response._meta);
        if (answer.kind === 'delivered') structured = { value: answer.value };
        else {
          reason = 'error';
          error = { message: answer.problem };
        }
      }
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
    const base = { sessionId: child.sessionId, output, usage };
    return resultOf(base, reason, error, this.cancelled, structured);
  }

  /**
   * The `_meta` of `session/new` that carries the request's contract to an agent that takes it;
   * throws when the request needs what the agent did not advertise (a Loom that cannot).
   */
  private contractFor(
    request: SubagentStartRequest,
    offered: LoomChildCapabilities,
    agent: string | undefined,
  ): Record<string, unknown> | undefined {
    const needed: Array<[keyof LoomChildCapabilities, string, unknown]> = [
      ['outputSchema', OUTPUT_SCHEMA_META_KEY, this.schema],
      ['toolFilter', TOOL_FILTER_META_KEY, request.toolFilter],
      ['persona', PERSONA_META_KEY, request.persona],
    ];
    const missing = needed.filter(([field, , value]) => value !== undefined && !offered[field]);
    if (missing.length > 0) {
      throw new SubagentError(
        'UNSUPPORTED_CAPABILITY',
        `the agent${agent ? ` ${agent}` : ''} does not support ${missing.map(([field]) => field).join(', ')} (its initialize response does not advertise _meta.${CHILD_CAPABILITIES_META_KEY})`,
      );
    }
    const meta: Record<string, unknown> = {};
    for (const [, key, value] of needed) if (value !== undefined) meta[key] = value;
    if (request.instructions && offered.instructions)
      meta[INSTRUCTIONS_META_KEY] = request.instructions;
    return Object.keys(meta).length > 0 ? meta : undefined;
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

type DeliveredAnswer = { kind: 'delivered'; value: unknown } | { kind: 'refused'; problem: string };

/** The value a Loom child captured, from its prompt response's `_meta`, if it matches `schema`. */
function deliveredAnswer(schema: JsonSchema, meta: unknown): DeliveredAnswer {
  const fields = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  if (!(STRUCTURED_OUTPUT_META_KEY in fields)) {
    return {
      kind: 'refused',
      problem: `the agent completed without a structured answer (_meta.${STRUCTURED_OUTPUT_META_KEY} of its prompt response)`,
    };
  }
  const value = fields[STRUCTURED_OUTPUT_META_KEY];
  const problems = deliveredValueChecker(schema)(value);
  if (problems.length === 0) return { kind: 'delivered', value };
  const list = problems.map((problem) => `- ${problem}`).join('\n');
  return {
    kind: 'refused',
    problem: `the agent's structured answer does not match the schema:\n${list}`,
  };
}

function resultOf(
  base: Pick<SubagentResult, 'sessionId' | 'output' | 'usage'>,
  reason: TurnEndReason,
  error: TurnError | undefined,
  cancelled: string | undefined,
  structured: { value: unknown } | undefined,
): SubagentResult {
  if (reason === 'completed') {
    if (!structured) return { ...base, stopReason: 'completed' };
    const { value } = structured;
    return { ...base, output: JSON.stringify(value), structured: value, stopReason: 'completed' };
  }
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
