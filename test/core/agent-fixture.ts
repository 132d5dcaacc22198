/**
 * Builds a real agent over the scripted model in a temporary LOOM_HOME, for loop tests.
 */
import { Context } from '../../src/core/context.js';
import { type AgentHandle, createAgent } from '../../src/core/create-agent.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import type { TurnLimits } from '../../src/core/turn-environment.js';
import type { ModelClient } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { deferred } from '../helpers/deferred.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export { deferred };

export interface FixtureOptions {
  model: ScriptedModelFile | ModelClient;
  tools?: ToolDefinition[];
  limits?: Partial<TurnLimits>;
  root?: Context;
}

export function agentFixture(options: FixtureOptions): AgentHandle & { home: string } {
  const home = temporaryFolder('loom-agent-');
  const model =
    'stream' in options.model
      ? options.model
      : createScriptedModel(options.model, { name: 'test' });
  const handle = createAgent({
    home,
    model,
    cwd: home,
    tools: options.tools ?? [],
    root: options.root ?? new Context(),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { ...handle, home };
}
