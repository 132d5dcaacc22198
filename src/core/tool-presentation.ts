/**
 * Which tools a model request offers natively, and which tools may be described ahead of any
 * call. Visibility (`ToolPipeline.restrict`) decides what an agent has; these hooks decide how
 * its tools are shown. They must never change what a call may do: permission stays with
 * `tools/pre-execute` and guards, which every call still meets.
 */
import type { Context } from './context.js';
import { defineWaterfall } from './context.js';
import type { ToolDefinition } from './tool-contract.js';

export interface ToolSet {
  agentId: string;
  tools: readonly ToolDefinition[];
}

/**
 * The tools one model request offers natively, from the agent's visible tools. Terminal: the
 * visible tools. Code Mode answers `run_code` alone (or the visible tools with it).
 */
export const toolsPresent = defineWaterfall<ToolSet, ToolDefinition[]>('tools/present');

/**
 * Drops the tools every call of which would be refused whatever its arguments (plan mode's
 * mutating tools, a permission rule that denies a tool outright). Terminal: the tools unchanged.
 * Used where tools are described ahead of calls (Code Mode's SDK); native presentation lists
 * visible tools and lets the call be refused.
 */
export const toolsAvailable = defineWaterfall<ToolSet, ToolDefinition[]>('tools/available');

/** The tools a request of `agentId` offers natively. */
export async function presentedTools(
  context: Context,
  agentId: string,
  visible: readonly ToolDefinition[],
): Promise<readonly ToolDefinition[]> {
  if (!context.hasListeners(toolsPresent)) return visible;
  return context.run(toolsPresent, { agentId, tools: visible }, ({ tools }) => [...tools]);
}

/** `tools` minus those every call of which would be refused. */
export async function availableTools(
  context: Context,
  agentId: string,
  tools: readonly ToolDefinition[],
): Promise<readonly ToolDefinition[]> {
  if (!context.hasListeners(toolsAvailable)) return tools;
  return context.run(toolsAvailable, { agentId, tools }, (input) => [...input.tools]);
}
