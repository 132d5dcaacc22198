/**
 * Installs checkpoints into a runtime: before the first call of a step that can change files
 * (`FILE_CHANGING_TOOLS`, after its permission is granted), a root agent's workspace is
 * snapshotted and `checkpoint/create {turn, step, tree}` logged, once per step. A later step of
 * the same turn whose tree did not change logs nothing; a turn's first checkpoint is always
 * logged, so each turn that could change files records how it began. Children (subagents,
 * workflow agents) take none: they share the workspace, and what they change is in their
 * parent's next checkpoint. A snapshot that fails never stops the tool: it is reported once on
 * stderr and the call runs.
 */
import { errorMessage } from '../base/errors.js';
import { agentWorkspaceKey } from '../core/agent-workspace.js';
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionEvent } from '../core/session-events.js';
import { toolExecute } from '../core/tool-execution.js';
import { FILE_CHANGING_TOOLS } from './contract.js';
import { ShadowRepository } from './shadow-repository.js';

export interface CheckpointSettings {
  /** Default true. */
  enabled?: boolean;
}

export interface CheckpointLayer {
  dispose: Disposer;
}

/** The shadow repository of each workspace this process snapshots, made once. */
const repositories = new Map<string, ShadowRepository>();

export function shadowRepository(home: string, workspace: string): ShadowRepository {
  const key = `${home}\0${workspace}`;
  let repository = repositories.get(key);
  if (!repository) {
    repository = new ShadowRepository(home, workspace);
    repositories.set(key, repository);
  }
  return repository;
}

let warned = false;

export function installCheckpoints(
  runtime: AgentRuntime,
  settings: CheckpointSettings = {},
): CheckpointLayer {
  if (settings.enabled === false) return { dispose: () => {} };
  const stop = runtime.onAgent((handle) => setUp(runtime, handle));
  return { dispose: stop };
}

function setUp(runtime: AgentRuntime, handle: AgentHandle): Disposer | undefined {
  const { log } = handle;
  if (log.header.delegationDepth !== 0 || handle.context.find(agentWorkspaceKey)) return undefined;
  const workspace = log.header.cwd ?? runtime.cwd;
  let step = 0;
  let lastTree = lastCheckpointTree(log.events);
  /** The snapshot of the step under way, shared by its calls; keyed by turn and step. */
  let taken: { key: string; done: Promise<void> } | undefined;
  let turnHasCheckpoint = new Set<string>();
  const take = async (turn: string, atStep: number) => {
    try {
      const tree = await shadowRepository(runtime.home, workspace).snapshot();
      if (tree === lastTree && turnHasCheckpoint.has(turn)) return;
      lastTree = tree;
      turnHasCheckpoint.add(turn);
      if (!log.closed) log.append('checkpoint/create', { turn, step: atStep, tree });
    } catch (error) {
      if (warned) return;
      warned = true;
      process.stderr.write(
        `loom: no checkpoint of ${workspace} (the step runs without one): ${errorMessage(error)}\n`,
      );
    }
  };
  return disposeAll([
    log.onAppend((event) => {
      if (event.type === 'step/start') {
        step = (event as SessionEvent<'step/start'>).data.step;
      } else if (event.type === 'turn/start') {
        turnHasCheckpoint = new Set();
      }
    }),
    handle.context.use(toolExecute, async (execution, next) => {
      if (FILE_CHANGING_TOOLS.has(execution.name)) {
        const key = `${execution.turnId}\0${step}`;
        if (taken?.key !== key) taken = { key, done: take(execution.turnId, step) };
        await taken.done;
      }
      return next(execution);
    }),
  ]);
}

function lastCheckpointTree(events: readonly SessionEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === 'checkpoint/create') {
      return (event as SessionEvent<'checkpoint/create'>).data.tree;
    }
  }
  return undefined;
}
