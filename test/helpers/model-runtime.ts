/**
 * An agent runtime over one model client, for layer tests: a fresh root scope, `home` as both
 * `$LOOM_HOME` and the workspace, and every agent answered by `model`. Layers install on it.
 */
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import type { ModelClient } from '../../src/llm/contract.js';

export function runtimeOver(model: ModelClient, home: string, root = new Context()): AgentRuntime {
  return new AgentRuntime({ root, home, cwd: home, resolveModel: () => model });
}
