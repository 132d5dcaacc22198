/**
 * Assembles one agent from its parts: a scope under the root context, a session log (new, or an
 * existing one continued after repair), a scoped tool pipeline and system prompt. The caller owns
 * the returned agent and must `close()` it so the log is flushed and closed.
 */
import type { ModelClient } from '../llm/contract.js';
import { Agent } from './agent.js';
import { BlobStore, blobStoreKey, blobsFolder } from './blob-store.js';
import { Context, type Disposer } from './context.js';
import { installDefaultPrompt } from './default-prompt.js';
import { loadToolsTool } from './load-tools-tool.js';
import type { SessionLog } from './session-log.js';
import { SessionStore } from './session-store.js';
import { SystemPrompt, systemPromptKey } from './system-prompt.js';
import type { ToolDefinition } from './tool-contract.js';
import { ToolPipeline, toolPipelineKey } from './tool-pipeline.js';
import type { TurnLimits } from './turn-environment.js';

export interface AssembleAgentOptions {
  /** The runtime's root scope; the agent's scope is made under it. */
  root: Context;
  log: SessionLog;
  model: ModelClient;
  cwd: string;
  tools?: ToolDefinition[];
  /**
   * Tools many agents share (a runtime's offered tools): the agent's own registry lies below
   * them, and none of its own may take one of their names.
   */
  sharedTools?: ToolPipeline;
  limits?: Partial<TurnLimits>;
  /** Replaces the default persona section. */
  persona?: string;
}

export interface CreateAgentOptions extends Omit<AssembleAgentOptions, 'root' | 'log'> {
  /** `$LOOM_HOME`: sessions live in its sessions/ folder. */
  home: string;
  /** Continue this session instead of starting a new one. */
  sessionId?: string;
  /** The root scope; a new one by default. */
  root?: Context;
}

export interface AgentHandle {
  agent: Agent;
  log: SessionLog;
  context: Context;
  tools: ToolPipeline;
  prompt: SystemPrompt;
  /** Runs `dispose` when the handle closes (child-first cleanup of attachments). */
  onClose(dispose: Disposer): void;
  /**
   * Runs the close hooks, then flushes and closes the log; idempotent. A running turn is
   * cancelled first and the log closes once it has ended, so no event is lost.
   */
  close(): void;
}

export function assembleAgent(options: AssembleAgentOptions): AgentHandle {
  const { log } = options;
  const context = options.root.child(log.header.sessionId);
  const tools = new ToolPipeline({
    context,
    ...(options.sharedTools ? { parent: options.sharedTools, shadows: false } : {}),
  });
  const prompt = new SystemPrompt({ context });
  context.provide(toolPipelineKey, tools);
  context.provide(systemPromptKey, prompt);
  installDefaultPrompt(prompt, options.cwd, options.persona);
  tools.register(loadToolsTool({ log, tools }));
  for (const tool of options.tools ?? []) tools.register(tool);
  const agent = new Agent({
    context,
    log,
    model: options.model,
    tools,
    prompt,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const closeHooks: Disposer[] = [];
  let closed = false;
  return {
    agent,
    log,
    context,
    tools,
    prompt,
    onClose(dispose) {
      closeHooks.push(dispose);
    },
    close() {
      if (closed) return;
      closed = true;
      for (const dispose of closeHooks.reverse()) dispose();
      if (agent.status === 'idle') {
        log.close();
        return;
      }
      agent.cancel('the agent was closed');
      void agent.whenIdle().then(() => log.close());
    },
  };
}

/** One agent on its own: a new session, or `sessionId` continued. */
export function createAgent(options: CreateAgentOptions): AgentHandle {
  const store = new SessionStore(options.home);
  const log = options.sessionId
    ? store.open(options.sessionId)
    : store.create({ cwd: options.cwd });
  const { home, sessionId: _sessionId, root = new Context(), ...rest } = options;
  if (!root.find(blobStoreKey)) root.provide(blobStoreKey, new BlobStore(blobsFolder(home)));
  return assembleAgent({ ...rest, root, log });
}
