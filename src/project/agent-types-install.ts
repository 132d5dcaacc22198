/**
 * Provides the agent-type service on a runtime's root scope, read from the runtime's workspace
 * and home once, now. Install it before the subagent layer: the `subagent` tool lists the types
 * in its description as it is made. Returns the undo.
 */
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { loadAgentTypes } from './agent-types.js';
import { agentTypesKey } from './agent-types-contract.js';

export function installAgentTypes(runtime: AgentRuntime): Disposer {
  return runtime.root.provide(
    agentTypesKey,
    loadAgentTypes({ workspace: runtime.cwd, home: runtime.home }),
  );
}
