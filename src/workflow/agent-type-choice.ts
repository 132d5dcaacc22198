/**
 * What `agent(prompt, {agentType})` makes of a workflow child: the type (from the agent-type
 * service on the run's scope) gives its persona, the tools it may see (every other tool is
 * hidden), its model and its effort, each unless the call names its own. An unknown type is
 * refused naming the known ones. A type listing tools no child of the run can be given (unknown,
 * root-only, `workflow` itself) makes a note for the child's agent-end `notes`. Pure over the
 * service; it starts nothing.
 */
import type { Context } from '../core/context.js';
import { agentRuntimeKey } from '../core/runtime.js';
import type { CatalogEntry } from '../core/tool-catalog.js';
import type { ReasoningEffort } from '../llm/contract.js';
import { unreachableTools, unreachableToolsNote } from '../project/agent-type-tools.js';
import { type AgentType, agentTypesKey } from '../project/agent-types-contract.js';
import { unknownTypeProblem } from './agent-call-check.js';
import { WORKFLOW_TOOL } from './tool.js';

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
  /**
   * The type's list names tools this child cannot be given: which and why, and whether it is
   * left with no tool at all (one line for the agent-end's `notes`).
   */
  note?: string;
}

/** Why a workflow's child never has `workflow`, though a type's list may name it. */
const WORKFLOW_CHILD_REASON =
  "a workflow's child may not run a workflow of its own: it would escape the run's caps";

/**
 * What `type` gives a child; `toolNames` are every tool a child of the runtime could be given.
 * `context` (the run's scope) gives the runtime's catalog, which says which of them no child is
 * given and why; without it a name not in `toolNames` is all that is told.
 */
export function typedChild(
  type: AgentType,
  toolNames: readonly string[],
  context?: Context,
): TypedChild {
  const note = toolsNote(type, toolNames, context);
  const allowed = new Set([...(type.tools ?? []), STRUCTURED_OUTPUT_TOOL]);
  const hidden =
    type.tools === undefined ? [] : [...new Set(toolNames)].filter((name) => !allowed.has(name));
  return {
    ...(type.prompt.trim() !== '' ? { persona: type.prompt } : {}),
    hidden: hidden.sort(),
    ...(type.model !== undefined ? { model: type.model } : {}),
    ...(type.effort !== undefined ? { effort: type.effort } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

function toolsNote(
  type: AgentType,
  toolNames: readonly string[],
  context: Context | undefined,
): string | undefined {
  if (type.tools === undefined) return undefined;
  const declared = new Map(
    (context?.find(agentRuntimeKey)?.toolCatalog.entries() ?? []).map((entry) => [
      entry.name,
      entry,
    ]),
  );
  const catalog: CatalogEntry[] = [...new Set(toolNames)].map((name) =>
    name === WORKFLOW_TOOL
      ? { name, argumentNames: undefined, notForChildren: WORKFLOW_CHILD_REASON }
      : (declared.get(name) ?? { name, argumentNames: undefined }),
  );
  return unreachableToolsNote(type, unreachableTools(type, catalog));
}
