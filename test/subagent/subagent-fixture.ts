/**
 * A runtime with the subagent layer over one scripted model, for layer-1 tests: a test can wait
 * for a child's request instead of for time and read every request in `model.calls`; the subagent
 * events are collected, and a gate tool lets a test hold an agent inside a tool call. `close()`
 * ends every agent the runtime still has; each test must call it so no hang outlives the test.
 */
import { readdirSync } from 'node:fs';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import { type LoadedSession, loadSessionFile } from '../../src/core/session-load.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import {
  type SubagentEndEvent,
  type SubagentStartEvent,
  subagentEnd,
  subagentStart,
} from '../../src/subagent/contract.js';
import {
  installSubagents,
  type SubagentLayer,
  type SubagentLayerOptions,
} from '../../src/subagent/install.js';
import type { SubagentServices } from '../../src/subagent/services.js';
import { deferred } from '../helpers/deferred.js';
import { echoTool } from '../helpers/echo-tool.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { type WaitingModel, waitingModel } from '../helpers/waiting-model.js';

export { deferred, type WaitingModel, waitingModel };

export interface Gate {
  /** `gate({key})`: holds its caller until the test opens `key`; honours cancellation. */
  readonly tool: ToolDefinition;
  /** Resolves once a call with `key` is inside the tool. */
  arrived(key: string): Promise<void>;
  open(key: string): void;
}

export function gateTool(): Gate {
  type Signal = ReturnType<typeof deferred<void>>;
  const arrivals = new Map<string, Signal>();
  const openings = new Map<string, Signal>();
  const slot = (table: typeof arrivals, key: string) => {
    let entry = table.get(key);
    if (!entry) {
      entry = deferred<void>();
      table.set(key, entry);
    }
    return entry;
  };
  return {
    tool: {
      name: 'gate',
      description: 'Waits until the test opens it.',
      parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      concurrencySafe: true,
      execute: async (args: { key: string }, execution) => {
        slot(arrivals, args.key).resolve();
        await new Promise<void>((resolve, reject) => {
          execution.signal.addEventListener('abort', () => reject(new Error('gate aborted')), {
            once: true,
          });
          slot(openings, args.key).promise.then(resolve);
        });
        return `gate ${args.key} opened`;
      },
    },
    arrived: (key) => slot(arrivals, key).promise,
    open: (key) => slot(openings, key).resolve(),
  };
}

export { echoTool };

export interface FixtureOptions {
  model: ScriptedModelFile;
  /** Registered on every agent the runtime makes (children too). */
  tools?: ToolDefinition[];
  layer?: SubagentLayerOptions;
  /** Reuse a LOOM_HOME (a simulated restart); default a new temporary folder. */
  home?: string;
  /**
   * Installs what the subagent layer reads as it installs (the agent-type service) before it;
   * returns its undo, run by `close()`.
   */
  before?: (runtime: AgentRuntime) => () => void;
  /**
   * Installs more layers (jobs, workflows) after the subagent layer and before the root agent
   * starts, so the root gets their tools too; returns their undo, run by `close()`.
   */
  install?: (runtime: AgentRuntime, services: SubagentServices) => () => void;
}

export interface SubagentFixture {
  runtime: AgentRuntime;
  layer: SubagentLayer;
  services: SubagentServices;
  /** A root agent (depth 0, no parent). */
  root: AgentHandle;
  rootId: string;
  home: string;
  model: WaitingModel;
  starts: SubagentStartEvent[];
  ends: SubagentEndEvent[];
  /** Resolves at the first `subagent/end` (past or future) that matches. */
  waitForEnd(match: (event: SubagentEndEvent) => boolean): Promise<SubagentEndEvent>;
  /** The session file of `sessionId` as it is on disk now. */
  load(sessionId: string): LoadedSession;
  /** Names of the session files under LOOM_HOME/sessions. */
  sessionFiles(): string[];
  /** Cancels and closes every agent, waits for them to stop, and uninstalls the layer. */
  close(): Promise<void>;
}

export function subagentFixture(options: FixtureOptions): SubagentFixture {
  const home = options.home ?? temporaryFolder('loom-subagent-');
  const model = waitingModel(options.model);
  const runtime = runtimeOver(model, home);
  const extraTools = options.tools ?? [];
  const undoTools = runtime.onAgent((handle) => {
    const undo = extraTools.map((tool) => handle.tools.register(tool));
    return () => {
      for (const dispose of undo) dispose();
    };
  });
  const undoBefore = options.before?.(runtime) ?? (() => {});
  const layer = installSubagents(runtime, options.layer);
  const uninstall = options.install?.(runtime, layer.services) ?? (() => {});
  const starts: SubagentStartEvent[] = [];
  const ends: SubagentEndEvent[] = [];
  const endWaiters: Array<{
    match: (event: SubagentEndEvent) => boolean;
    resolve: (event: SubagentEndEvent) => void;
  }> = [];
  const undoEvents = [
    runtime.root.on(subagentStart, (event) => {
      starts.push(event);
    }),
    runtime.root.on(subagentEnd, (event) => {
      ends.push(event);
      for (const waiter of [...endWaiters]) {
        if (!waiter.match(event)) continue;
        endWaiters.splice(endWaiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }),
  ];
  const root = runtime.start();
  const rootId = root.log.header.sessionId;
  return {
    runtime,
    layer,
    services: layer.services,
    root,
    rootId,
    home,
    model,
    starts,
    ends,
    waitForEnd(match) {
      const earlier = ends.find(match);
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve) => endWaiters.push({ match, resolve }));
    },
    load: (sessionId) => loadSessionFile(runtime.store.pathOf(sessionId)),
    sessionFiles: () =>
      readdirSync(runtime.store.directory)
        .filter((name) => name.endsWith('.jsonl'))
        .sort(),
    async close() {
      layer.services.children.releaseUnder(rootId);
      const live = runtime.liveAgents;
      for (const handle of live) handle.close();
      await Promise.all(live.map((handle) => handle.agent.whenIdle()));
      for (const dispose of undoEvents) dispose();
      uninstall();
      undoTools();
      layer.dispose();
      undoBefore();
    },
  };
}

/** The events of one type, with their data typed. */
export function eventsOf<Type extends SessionEventType>(
  events: readonly SessionEvent[],
  type: Type,
): SessionEvent<Type>['data'][] {
  return events
    .filter((event): event is SessionEvent<Type> => event.type === type)
    .map((event) => event.data);
}
