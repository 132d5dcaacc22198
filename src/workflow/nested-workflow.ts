/**
 * `workflow(nameOrPath, args)`: runs a saved workflow or a file one level deep, in the same
 * worker, in a fresh realm whose hooks share the run's caps, agent numbering, slots, cancellation
 * and events (tagged with the nested meta name). Only JSON values cross between the two realms.
 * A `workflow()` call inside a nested run is a fatal NESTING_LIMIT, thrown synchronously. It
 * never reads a file: the host loads the workflow and sends its body.
 */
import type { WorkflowError, WorkflowLimits } from './contract.js';
import { describe, fatal, type HookHost, handOut, isPlainObject } from './hooks.js';
import { materializeFromRealm } from './materialize.js';
import type { AgentStartOptions } from './protocol.js';

/** What the hook needs from the session that runs the top-level script. */
export interface NestingSession extends HookHost {
  /** As `HookHost`'s, with the nested run's name the host tags the call with. */
  requestAgent(prompt: string, options: AgentStartOptions, workflow?: string): Promise<unknown>;
  postPhase(title: string, workflow?: string): void;
  postLog(message: string, workflow?: string): void;
  /**
   * Runs `script` as a workflow body in a fresh realm whose hooks serve `host` (and sets the
   * host's `allowedPrototypes` to that realm's); its first synchronous slice is limited by
   * `syncTimeoutMs`. Resolves the return value as a JSON value of the engine's realm; rejects
   * with what the body threw, or with an engine error naming the nested run when its first slice
   * ran too long. The one engine-specific step of nesting.
   */
  runNestedScript(run: NestedScript): Promise<unknown>;
}

export interface NestedScript {
  /** The nested meta name. */
  name: string;
  script: string;
  /** A JSON object of the engine's realm, already copied out of the caller's realm. */
  args: Record<string, unknown>;
  host: NestedHookHost;
}

/** The hooks' host inside a nested run: the session's, with every call tagged by the run's name. */
export class NestedHookHost implements HookHost {
  readonly limits: WorkflowLimits;
  readonly cancellation: Promise<never>;
  readonly workflowName: string;
  readonly budgetTotal: number | null;
  allowedPrototypes: ReadonlySet<object | null> = new Set();
  private readonly session: NestingSession;
  private ended: WorkflowError | undefined;

  constructor(session: NestingSession, name: string) {
    this.session = session;
    this.workflowName = name;
    this.limits = session.limits;
    this.cancellation = session.cancellation;
    this.budgetTotal = session.budgetTotal;
  }

  /** One budget per run: the nested run spends the run's. */
  budgetSpent(): number {
    return this.session.budgetSpent();
  }

  stopped(): WorkflowError | undefined {
    return this.session.stopped() ?? this.ended;
  }

  requestAgent(prompt: string, options: AgentStartOptions): Promise<unknown> {
    return this.session.requestAgent(prompt, options, this.workflowName);
  }

  postPhase(title: string): void {
    this.session.postPhase(title, this.workflowName);
  }

  postLog(message: string): void {
    this.session.postLog(message, this.workflowName);
  }

  loadWorkflow(target: string): Promise<{ name: string; script: string }> {
    return handOut(Promise.reject(nestingLimit(this.workflowName, target)));
  }

  /** The nested script has ended: hook calls its dropped promises make later fail. */
  end(): void {
    this.ended ??= fatal(
      'CANCELLED',
      `the nested workflow ${JSON.stringify(this.workflowName)} has already finished`,
    );
  }
}

function nestingLimit(name: string, target: unknown): WorkflowError {
  const named = typeof target === 'string' ? JSON.stringify(target.slice(0, 200)) : '…';
  return fatal(
    'NESTING_LIMIT',
    `workflow(${named}) was called inside the nested workflow ${JSON.stringify(name)}: workflows nest one level deep only; call it from the top-level script instead`,
  );
}

/** The `workflow` global of a realm whose hooks serve `host` (the session, or a nested host). */
export function createWorkflowHook(session: NestingSession, host: HookHost) {
  return function workflow(target: unknown, args?: unknown): Promise<unknown> {
    if (host.workflowName !== undefined) throw nestingLimit(host.workflowName, target);
    const stopped = host.stopped();
    if (stopped) return handOut(Promise.reject(stopped));
    if (typeof target !== 'string' || target.trim().length === 0) {
      throw fatal(
        'INVALID_ARGUMENT',
        `workflow() takes a saved workflow's name or a path to a .js file, not ${describe(target)}`,
      );
    }
    if (args !== undefined && !isPlainObject(args)) {
      throw fatal(
        'INVALID_ARGUMENT',
        `workflow() args must be a plain object (the nested script's \`args\`), not ${describe(args)}`,
      );
    }
    const copied =
      args === undefined
        ? {}
        : (materializeFromRealm(args, {
            label: 'workflow() args',
            allowedPrototypes: host.allowedPrototypes,
          }) as Record<string, unknown>);
    return handOut(runNested(session, target, copied));
  };
}

async function runNested(
  session: NestingSession,
  target: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const { name, script } = await session.loadWorkflow(target);
  const stopped = session.stopped();
  if (stopped) throw stopped;
  const host = new NestedHookHost(session, name);
  try {
    return await session.runNestedScript({ name, script, args, host });
  } finally {
    host.end();
  }
}
