/**
 * The in-process providers: `spawn` (a fresh child) and `fork` (a child seeded with the parent's
 * completed turns). Both run the child as an ordinary agent of the same runtime, persisted with
 * its parent and depth. A one-shot child is closed when its turn ends; a continuable one is
 * handed to the child registry and lives on.
 */
import type { TurnOutcome } from '../core/agent-hooks.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionEvent } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import type { ModelClient, ReasoningEffort } from '../llm/contract.js';
import type { ChildRegistry } from './children.js';
import {
  type ChildDescriptor,
  type EffortReport,
  type SubagentCapabilities,
  SubagentError,
  type SubagentProvider,
  type SubagentResult,
  type SubagentRun,
  type SubagentStartRequest,
} from './contract.js';
import { completedTurnPrefix } from './fork-seed.js';
import { attachStructuredOutput, type StructuredCapture } from './structured-output/capture.js';
import { assertSupportedSchema, cloneSchema } from './structured-output/output-schema.js';

export const DEFAULT_MAX_DEPTH = 3;

export interface InProcessProviderOptions {
  name: 'spawn' | 'fork';
  runtime: AgentRuntime;
  children: ChildRegistry;
  /** Applies a descriptor's tool filter, instructions and continuable tools to a child. */
  prepare(handle: AgentHandle, descriptor: ChildDescriptor): void;
  /** Depth limit when the request names none; default 3. */
  maxDepth?: number;
}

const capabilities = (fork: boolean): SubagentCapabilities => ({
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
  inheritsParentContext: fork,
  activity: true,
  workspace: true,
});

export function createInProcessProvider(options: InProcessProviderOptions): SubagentProvider {
  const fork = options.name === 'fork';
  return {
    name: options.name,
    capabilities: capabilities(fork),
    start: (request) => startChild(options, fork, request),
  };
}

/** The child's depth, or DEPTH_LIMIT when it would pass the limit (the request's, else `defaultLimit`). */
export function checkDepth(request: SubagentStartRequest, defaultLimit: number): number {
  const depth = request.parent.delegationDepth + 1;
  const limit = request.maxDepth ?? defaultLimit;
  if (depth > limit) {
    throw new SubagentError(
      'DEPTH_LIMIT',
      limit === 0
        ? 'delegation is turned off (the depth limit is 0)'
        : `the delegation depth limit of ${limit} is reached: this agent is at depth ${request.parent.delegationDepth} and may not start another subagent`,
    );
  }
  return depth;
}

function parentEvents(runtime: AgentRuntime, sessionId: string | null): readonly SessionEvent[] {
  if (!sessionId)
    throw new SubagentError('UNSUPPORTED_CAPABILITY', 'fork needs a parent session to copy');
  return (
    runtime.find(sessionId)?.log.events ?? loadSessionFile(runtime.store.pathOf(sessionId)).events
  );
}

function describe(name: string, request: SubagentStartRequest): ChildDescriptor {
  const descriptor: ChildDescriptor = {
    provider: name,
    description: request.description ?? '',
    continuable: request.continuable === true,
  };
  const model = request.model ?? request.defaultModel;
  if (model !== undefined) descriptor.model = model;
  if (request.toolFilter !== undefined) descriptor.toolFilter = [...request.toolFilter];
  if (request.persona !== undefined) descriptor.persona = request.persona;
  if (request.instructions !== undefined) descriptor.instructions = request.instructions;
  if (request.maxDepth !== undefined) descriptor.maxDepth = request.maxDepth;
  if (request.effort !== undefined) descriptor.effort = request.effort;
  if (request.workspace !== undefined) descriptor.workspace = request.workspace;
  return descriptor;
}

/**
 * The descriptor as the child's log keeps it. A one-shot child cannot be resumed, and its
 * instructions reach the model as a system prompt section, which its request's prompt already
 * records: they are not written a second time (a workflow's child file stays small).
 */
function loggedDescriptor(descriptor: ChildDescriptor): ChildDescriptor {
  if (descriptor.continuable || descriptor.instructions === undefined) return descriptor;
  const { instructions: _inPrompt, ...rest } = descriptor;
  return rest;
}

/** What the child's model does with `effort`: its route's control, or a note that it has none. */
export function effortReport(model: ModelClient, effort: ReasoningEffort): EffortReport {
  const control = model.reasoningControl?.(effort);
  return control !== undefined
    ? { level: effort, control }
    : {
        level: effort,
        note: `${model.id} has no reasoning control: the agent ran without effort ${effort}`,
      };
}

function startChild(
  options: InProcessProviderOptions,
  fork: boolean,
  request: SubagentStartRequest,
): SubagentRun {
  const depth = checkDepth(request, options.maxDepth ?? DEFAULT_MAX_DEPTH);
  if (request.continuable && request.outputSchema) {
    throw new SubagentError(
      'UNSUPPORTED_CAPABILITY',
      'a child with an outputSchema is one-shot; it cannot be continuable',
    );
  }
  const schema = request.outputSchema
    ? assertSupportedSchema(cloneSchema(request.outputSchema))
    : undefined;
  const seed = fork
    ? completedTurnPrefix(parentEvents(options.runtime, request.parent.sessionId))
    : undefined;
  const descriptor = describe(options.name, request);
  const handle = options.runtime.start({
    parentSession: request.parent.sessionId,
    delegationDepth: depth,
    ...(seed ? { seed } : {}),
    ...(descriptor.model !== undefined ? { model: descriptor.model } : {}),
    ...(request.persona !== undefined ? { persona: request.persona } : {}),
    ...(request.effort !== undefined ? { limits: { effort: request.effort } } : {}),
    ...(request.workspace !== undefined ? { workspace: request.workspace } : {}),
    // Many children start at once in a workflow: their files are made without stalling the host,
    // and hold no copy of the system prompt and tool schemas they share.
    deferFile: true,
    sharedPrompts: true,
  });
  handle.log.append('subagent/descriptor', loggedDescriptor(descriptor));
  options.prepare(handle, descriptor);
  const capture = schema ? attachStructuredOutput(handle, schema) : undefined;
  if (descriptor.continuable) options.children.adopt(handle, descriptor);

  const { onUsage, onActivity } = request;
  const stopReporting =
    onUsage || onActivity
      ? handle.log.onAppend((event) => {
          switch (event.type) {
            case 'request/header':
              onActivity?.('request');
              return;
            case 'assistant/chunk':
              onActivity?.('output');
              return;
            case 'assistant/message': {
              const { usage, model } = (event as SessionEvent<'assistant/message'>).data;
              onUsage?.({ usage, model });
              onActivity?.('answered');
              return;
            }
            case 'model/side-request': {
              // A summary the child's compaction asked for is charged like any of its requests.
              const { usage, model } = (event as SessionEvent<'model/side-request'>).data;
              onUsage?.({ usage, model });
              return;
            }
            default:
              return;
          }
        })
      : undefined;
  /** The first reason the child was asked to stop with, for its diagnostic. */
  let cancelReason: string | undefined;
  const onAbort = () => {
    const reason: unknown = request.signal?.reason;
    if (typeof reason === 'string') cancelReason ??= reason;
    handle.agent.cancel('the parent cancelled this subagent');
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) queueMicrotask(onAbort);
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    request.signal?.removeEventListener('abort', onAbort);
    stopReporting?.();
    capture?.dispose();
    options.children.releaseUnder(handle.log.header.sessionId);
    handle.close();
  };
  // A child keeps the model it started with, so what it does with the effort is known now.
  const effort =
    request.effort === undefined ? undefined : effortReport(handle.agent.model, request.effort);
  const result = handle.agent.prompt(request.prompt).then((outcome) => {
    const settled = toResult(handle, outcome, capture, cancelReason);
    if (effort) settled.effort = effort;
    if (!descriptor.continuable) dispose();
    else request.signal?.removeEventListener('abort', onAbort);
    return settled;
  });
  return {
    id: handle.log.header.sessionId,
    result,
    cancel: (reason) => {
      cancelReason ??= reason;
      handle.agent.cancel(reason ?? 'cancelled');
    },
    dispose,
  };
}

function toResult(
  handle: AgentHandle,
  outcome: TurnOutcome,
  capture: StructuredCapture | undefined,
  cancelReason: string | undefined,
): SubagentResult {
  const base = { sessionId: handle.log.header.sessionId, usage: outcome.usage };
  if (outcome.reason === 'aborted') {
    return {
      ...base,
      output: outcome.text,
      stopReason: 'cancelled',
      diagnostic: cancelReason ?? 'the subagent was cancelled',
    };
  }
  if (outcome.reason !== 'completed') {
    const diagnostic =
      outcome.reason === 'error'
        ? outcome.error.message
        : `the subagent stopped: ${outcome.reason}`;
    return { ...base, output: outcome.text, stopReason: 'error', diagnostic };
  }
  const captured = capture?.outcome();
  if (captured?.kind === 'captured') {
    return {
      ...base,
      output: JSON.stringify(captured.value),
      structured: captured.value,
      stopReason: 'completed',
    };
  }
  return { ...base, output: outcome.text, stopReason: 'completed' };
}
