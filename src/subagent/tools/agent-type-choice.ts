/**
 * What the `subagent` tool's `agent_type` makes of a child: the type's prompt as its persona,
 * its tool list as a filter (every other tool the caller could pass on is hidden; what the
 * caller has hidden stays hidden), its model and effort. Types come from the agent-type service
 * of the runtime's root scope; a name it does not know fails before any child starts. A type
 * whose list names tools no child can be given has a note the tool's result carries.
 */
import type { CatalogEntry } from '../../core/tool-catalog.js';
import { LOAD_TOOLS_TOOL } from '../../core/tool-loading.js';
import type { ReasoningEffort } from '../../llm/contract.js';
import { unreachableTools, unreachableToolsNote } from '../../project/agent-type-tools.js';
import {
  type AgentType,
  type AgentTypes,
  agentTypesKey,
  DEFAULT_AGENT_TYPE,
} from '../../project/agent-types-contract.js';
import { SubagentError } from '../contract.js';
import type { Caller, SubagentServices } from '../services.js';
import { STRUCTURED_OUTPUT_TOOL } from '../structured-output/capture-instructions.js';

/**
 * Tools a type's list never hides: those the subagent layer gives a child for its own answer,
 * and `load_tools`, which grants nothing (it shows the schemas of the child's deferred tools).
 */
const ANSWER_TOOLS: readonly string[] = [STRUCTURED_OUTPUT_TOOL, 'report', LOAD_TOOLS_TOOL];

export interface AgentTypeChoice {
  persona?: string;
  toolFilter?: string[];
  model?: string;
  effort?: ReasoningEffort;
}

export function agentTypesOf(services: SubagentServices): AgentTypes | undefined {
  return services.runtime.root.find(agentTypesKey);
}

/** The tool description's list of types, one line each; empty without the service. */
export function describeAgentTypes(services: SubagentServices): string {
  const types = agentTypesOf(services)?.list() ?? [];
  if (types.length === 0) return '';
  const lines = types.map((type) => `- ${type.name}: ${oneLine(type.description)}`);
  return [`Agent types (agent_type; default ${DEFAULT_AGENT_TYPE}):`, ...lines].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The UNKNOWN_AGENT_TYPE error for `name`: the known types, and the named file's problem if any. */
function unknownType(types: AgentTypes | undefined, name: string): SubagentError {
  if (!types) {
    return new SubagentError(
      'UNKNOWN_AGENT_TYPE',
      `no agent type named ${name}: this runtime has no agent types`,
    );
  }
  const problem = types.problems().find((candidate) => candidate.name === name);
  const known = types
    .list()
    .map((type) => type.name)
    .join(', ');
  const why = problem ? `: ${problem.path} is malformed (${problem.problem})` : '';
  return new SubagentError(
    'UNKNOWN_AGENT_TYPE',
    `no agent type named ${name}${why}; the known agent types are ${known}`,
  );
}

/** What the type `name` (default general-purpose) gives a child of `caller`. */
export function chooseAgentType(
  services: SubagentServices,
  caller: Caller,
  name: string | undefined,
): AgentTypeChoice {
  const types = agentTypesOf(services);
  const type = types?.find(name ?? DEFAULT_AGENT_TYPE);
  if (!type) {
    if (name === undefined) return callerFilter(caller);
    throw unknownType(types, name);
  }
  return {
    ...(type.prompt !== '' ? { persona: type.prompt } : {}),
    ...toolFilterOf(services, caller, type),
    ...(type.model !== undefined ? { model: type.model } : {}),
    ...(type.effort !== undefined ? { effort: type.effort } : {}),
  };
}

/**
 * The note for a child of `caller` of the type `name` (default general-purpose) whose list names
 * tools no child can be given (unknown, only for root agents), judged against what a child could
 * be offered (as `toolFilterOf` reads it: the caller's tools and the runtime's catalog, whose
 * entries say which no child gets); undefined when it names none or there is no such type.
 */
export function agentTypeToolsNote(
  services: SubagentServices,
  caller: Caller,
  name: string | undefined,
): string | undefined {
  const type = agentTypesOf(services)?.find(name ?? DEFAULT_AGENT_TYPE);
  if (type?.tools === undefined) return undefined;
  const catalog: CatalogEntry[] = services.runtime.toolCatalog.entries();
  const declared = new Set(catalog.map((entry) => entry.name));
  for (const tool of services.runtime.find(caller.sessionId)?.tools.visible() ?? []) {
    if (!declared.has(tool.name)) catalog.push({ name: tool.name, argumentNames: undefined });
  }
  return unreachableToolsNote(type, unreachableTools(type, catalog));
}

function callerFilter(caller: Caller): AgentTypeChoice {
  return caller.toolFilter ? { toolFilter: [...caller.toolFilter] } : {};
}

/**
 * The caller's hidden tools, plus, for a type with a tool list, every other tool a child could
 * be given: the caller's own and each one a layer declared (a root-only or child-only tool too).
 */
function toolFilterOf(
  services: SubagentServices,
  caller: Caller,
  type: AgentType,
): AgentTypeChoice {
  if (type.tools === undefined) return callerFilter(caller);
  const allowed = new Set([...type.tools, ...ANSWER_TOOLS]);
  const offered = [
    ...(services.runtime.find(caller.sessionId)?.tools.visible() ?? []).map((tool) => tool.name),
    ...services.runtime.toolCatalog.entries().map((entry) => entry.name),
  ];
  const hidden = new Set(caller.toolFilter ?? []);
  for (const name of offered) if (!allowed.has(name)) hidden.add(name);
  return hidden.size > 0 ? { toolFilter: [...hidden].sort() } : {};
}
