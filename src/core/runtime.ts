/**
 * The agent runtime: makes every agent of a process (the root one and any children) from one
 * place, so each gets the same tools and prompt sections through setup hooks, and keeps the live
 * ones by id. It knows nothing of delegation: layers above decide depth, seeds and parentage.
 * It never closes an agent it did not make.
 */

import { UserError } from '../base/errors.js';
import type { ModelClient } from '../llm/contract.js';
import { agentWorkspaceKey } from './agent-workspace.js';
import { BlobStore, blobStoreKey, blobsFolder } from './blob-store.js';
import { type Context, type Disposer, serviceKey } from './context.js';
import { type AgentHandle, assembleAgent } from './create-agent.js';
import { credentialVariablesKey } from './credential-variables.js';
import type { SessionEvent } from './session-events.js';
import { SessionStore } from './session-store.js';
import { ToolCatalog } from './tool-catalog.js';
import type { ToolDefinition } from './tool-contract.js';
import {
  LOAD_TOOLS_PARAMETERS,
  LOAD_TOOLS_TOOL,
  type ToolLoadingSettings,
  toolLoadingKey,
} from './tool-loading.js';
import { ToolPipeline } from './tool-pipeline.js';
import type { TurnLimits } from './turn-environment.js';

/** Prepares a new agent (tools, prompt sections) before its first turn; returns its undo. */
export type AgentSetup = (handle: AgentHandle) => Disposer | undefined;

export interface RuntimeOptions {
  root: Context;
  /** `$LOOM_HOME`. */
  home: string;
  /** The workspace every agent works in. */
  cwd: string;
  /** Turns a model spec into a client; no spec means the default model. */
  resolveModel(spec?: string): ModelClient;
  limits?: Partial<TurnLimits>;
  /** Which tools requests defer (core/tool-loading); default: every `deferral` tool is deferred. */
  toolLoading?: ToolLoadingSettings;
}

export interface StartAgentOptions {
  parentSession?: string | null;
  delegationDepth?: number;
  /** Events copied from a parent (a fork's completed turns). */
  seed?: readonly SessionEvent[];
  /** A model spec or a ready client; default: the runtime's default model. */
  model?: string | ModelClient;
  limits?: Partial<TurnLimits>;
  /** Replaces the default persona section for this agent only. */
  persona?: string;
  /** Default false; true makes the session file off the thread (see `CreateSessionOptions`). */
  deferFile?: boolean;
  /** Default false; true keeps its prompts in the shared prompt store (see `CreateSessionOptions`). */
  sharedPrompts?: boolean;
  /**
   * The folder this agent works in instead of the runtime's `cwd` (absolute): its session's
   * workspace, its prompt's working folder and its tools' root (`agentWorkspaceKey`).
   */
  workspace?: string;
}

export const agentRuntimeKey = serviceKey<AgentRuntime>('core/agent-runtime');

export class AgentRuntime {
  readonly root: Context;
  readonly home: string;
  readonly cwd: string;
  readonly store: SessionStore;
  /**
   * The tools its agents may be given: those of `offerTools`, and those a layer registers on only
   * some agents (declared here by that layer).
   */
  readonly toolCatalog = new ToolCatalog();
  private readonly options: RuntimeOptions;
  /**
   * The tools of `offerTools` and `installLayer`, registered once and shared: each agent's own
   * registry lies below it (core/create-agent), so an agent costs no registration of them, and
   * none of its own tools may take one of their names.
   */
  private readonly sharedTools: ToolPipeline;
  private readonly setups: AgentSetup[] = [];
  private readonly live = new Map<string, AgentHandle>();

  constructor(options: RuntimeOptions) {
    this.options = options;
    this.root = options.root;
    this.home = options.home;
    this.cwd = options.cwd;
    this.store = new SessionStore(options.home, () => this.root.find(credentialVariablesKey));
    this.sharedTools = new ToolPipeline({ context: options.root });
    if (options.toolLoading) this.root.provide(toolLoadingKey, options.toolLoading);
    // Every agent has `load_tools` (core/create-agent); for as long as the runtime lives.
    this.toolCatalog.declare([{ name: LOAD_TOOLS_TOOL, parameters: LOAD_TOOLS_PARAMETERS }]);
    // One store of image bytes for the process; a second runtime on the same root shares it.
    if (!this.root.find(blobStoreKey)) {
      this.root.provide(blobStoreKey, new BlobStore(blobsFolder(options.home)));
    }
  }

  /** Runs `setup` for every agent made from now on. */
  onAgent(setup: AgentSetup): Disposer {
    this.setups.push(setup);
    return () => {
      const index = this.setups.indexOf(setup);
      if (index >= 0) this.setups.splice(index, 1);
    };
  }

  /**
   * Gives `tools` to every agent of the runtime, live and later, and declares them in the
   * catalog, so config that names tools is checked against what agents really get. A bad
   * definition, or a name another offer has, throws (DUPLICATE_TOOL) and gives none; a live
   * agent's own tool of an offered name stays its own. The undo takes them back from every
   * agent, and from the catalog.
   */
  offerTools(tools: readonly ToolDefinition[]): Disposer {
    return this.installLayer(tools);
  }

  /** Whether an offered tool (`offerTools`, `installLayer`) has this name. */
  offers(name: string): boolean {
    return this.sharedTools.lookup(name) !== undefined;
  }

  /**
   * A layer: `tools` (given as by `offerTools`), and what `perAgent` sets up on each agent made
   * from now on, each given by its undo. The layer's undo undoes all of it, in reverse, on every
   * agent that has it, once; an agent that closes undoes its own.
   */
  installLayer(
    tools: readonly ToolDefinition[],
    perAgent?: (handle: AgentHandle) => Disposer[],
  ): Disposer {
    const unregister = this.sharedTools.registerAll(tools);
    const undeclare = this.toolCatalog.declare(tools);
    const given = new Set<Disposer>();
    const stopSetting = perAgent
      ? this.onAgent((handle) => {
          const own = perAgent(handle);
          const undo = () => {
            if (!given.delete(undo)) return;
            for (let index = own.length - 1; index >= 0; index--) own[index]?.();
          };
          given.add(undo);
          return undo;
        })
      : undefined;
    let undone = false;
    return () => {
      if (undone) return;
      undone = true;
      stopSetting?.();
      for (const undo of [...given]) undo();
      unregister();
      undeclare();
    };
  }

  /** A new session and its agent. */
  start(options: StartAgentOptions = {}): AgentHandle {
    const log = this.store.create({
      cwd: options.workspace ?? this.cwd,
      parentSession: options.parentSession ?? null,
      delegationDepth: options.delegationDepth ?? 0,
      ...(options.seed ? { seed: options.seed } : {}),
      ...(options.deferFile ? { deferFile: true } : {}),
      ...(options.sharedPrompts ? { sharedPrompts: true } : {}),
    });
    return this.activate(log, options);
  }

  /** An existing session continued (after repair). A live one is returned as it is. */
  resume(
    sessionId: string,
    options: Pick<StartAgentOptions, 'model' | 'limits' | 'persona' | 'workspace'> = {},
  ): AgentHandle {
    const running = this.live.get(sessionId);
    if (running) return running;
    return this.activate(this.store.open(sessionId), options);
  }

  /** The live agent of `sessionId`, if this process has one. */
  find(sessionId: string): AgentHandle | undefined {
    return this.live.get(sessionId);
  }

  get liveAgents(): AgentHandle[] {
    return [...this.live.values()];
  }

  private activate(
    log: ReturnType<SessionStore['create']>,
    options: StartAgentOptions,
  ): AgentHandle {
    const model =
      typeof options.model === 'object' ? options.model : this.options.resolveModel(options.model);
    const limits = { ...this.options.limits, ...options.limits };
    const handle = assembleAgent({
      root: this.root,
      sharedTools: this.sharedTools,
      log,
      model,
      cwd: options.workspace ?? this.cwd,
      limits,
      ...(options.persona !== undefined ? { persona: options.persona } : {}),
    });
    if (options.workspace !== undefined) {
      handle.onClose(handle.context.provide(agentWorkspaceKey, options.workspace));
    }
    const id = log.header.sessionId;
    if (this.live.has(id))
      throw new UserError('INVALID_ARGUMENT', `session ${id} is already active`);
    this.live.set(id, handle);
    handle.onClose(() => this.live.delete(id));
    try {
      for (const setup of this.setups) {
        const undo = setup(handle);
        if (undo) handle.onClose(undo);
      }
    } catch (error) {
      // The setups made so far are undone and the session closed: nothing stays half made.
      handle.close();
      throw error;
    }
    return handle;
  }
}
