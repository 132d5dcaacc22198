/**
 * What `agent(prompt, {agentType})` makes of a workflow child: the type (from the agent-type
 * service on the run's scope) gives its persona, the tools it may see (every other tool is
 * hidden), its model and its effort, each unless the call names its own. An unknown type is
 * refused naming the known ones. Pure over the service; it starts nothing.
 */
import type { Context } from '../core/context.js';
import type { ReasoningEffort } from '../llm/contract.js';
import { type AgentType, agentTypesKey } from '../project/agent-types-contract.js';
import { unknownTypeProblem } from './agent-call-check.js';

/** The tool a child answers a schema through: never hidden by a type's tool list. */
const STRUCTURED_OUTPUT_TOOL = 'structured_output';

/** The type `name`, or the refusal naming the known ones. */
export function findAgentType(
  context: Context,
  name: string,
): { type: AgentType } | { refusal: string } {
  const types = context.find(agentTypesKey);
  if (!types) {
    return {
      refusal: `agent() option agentType ${JSON.stringify(name)} cannot be used here: this runtime has no agent types`,
    };
  }
  const type = types.find(name);
  if (type) return { type };
  return { refusal: unknownTypeProblem(name, types) ?? `no agent type ${name}` };
}

export interface TypedChild {
  /** Replaces the child's persona; absent: Loom's own (a type without a prompt). */
  persona?: string;
  /** Tools to hide beyond the run's own: everything the type does not list. */
  hidden: string[];
  model?: string;
  effort?: ReasoningEffort;
}

/** What `type` gives a child; `toolNames` are every tool a child of the runtime could be given. */
export function typedChild(type: AgentType, toolNames: readonly string[]): TypedChild {
  const allowed = new Set([...(type.tools ?? []), STRUCTURED_OUTPUT_TOOL]);
  const hidden =
    type.tools === undefined ? [] : [...new Set(toolNames)].filter((name) => !allowed.has(name));
  return {
    ...(type.prompt.trim() !== '' ? { persona: type.prompt } : {}),
    hidden: hidden.sort(),
    ...(type.model !== undefined ? { model: type.model } : {}),
    ...(type.effort !== undefined ? { effort: type.effort } : {}),
  };
}
