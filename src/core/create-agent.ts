/**
 * Assembles one agent from its parts: a scope under the root context, a session log (new, or an
 * existing one continued after repair), a scoped tool pipeline and system prompt. The caller owns
 * the returned agent and must `close()` it so the log is flushed and closed.
 */
import type { ModelClient } from '../llm/contract.js';
import { Agent } from './agent.js';
import { Context } from './context.js';
import { installDefaultPrompt } from './default-prompt.js';
import type { SessionLog } from './session-log.js';
import { SessionStore } from './session-store.js';
import { SystemPrompt, systemPromptKey } from './system-prompt.js';
import type { ToolDefinition } from './tool-contract.js';
import { ToolPipeline, toolPipelineKey } from './tool-pipeline.js';
import type { TurnLimits } from './turn.js';

export interface CreateAgentOptions {
  /** `$LOOM_HOME`: sessions live in its sessions/ folder. */
  home: string;
  model: ModelClient;
  cwd: string;
  /** Continue this session instead of starting a new one. */
  sessionId?: string;
  tools?: ToolDefinition[];
  limits?: Partial<TurnLimits>;
  /** The root scope; a new one by default. */
  root?: Context;
}

export interface AgentHandle {
  agent: Agent;
  log: SessionLog;
  context: Context;
  tools: ToolPipeline;
  prompt: SystemPrompt;
  /** Flushes and closes the log; idempotent. */
  close(): void;
}

export function createAgent(options: CreateAgentOptions): AgentHandle {
  const root = options.root ?? new Context();
  const store = new SessionStore(options.home);
  const log = options.sessionId
    ? store.open(options.sessionId)
    : store.create({ cwd: options.cwd });
  const context = root.child(log.header.sessionId);
  const tools = new ToolPipeline({ context });
  const prompt = new SystemPrompt({ context });
  context.provide(toolPipelineKey, tools);
  context.provide(systemPromptKey, prompt);
  installDefaultPrompt(prompt, options.cwd);
  for (const tool of options.tools ?? []) tools.register(tool);
  const agentOptions: ConstructorParameters<typeof Agent>[0] = {
    context,
    log,
    model: options.model,
    tools,
    prompt,
  };
  if (options.limits) agentOptions.limits = options.limits;
  const agent = new Agent(agentOptions);
  let closed = false;
  return {
    agent,
    log,
    context,
    tools,
    prompt,
    close() {
      if (closed) return;
      closed = true;
      log.close();
    },
  };
}
