/**
 * What the subagent tools need, bundled: the runtime that makes agents, the provider registry and
 * the child registry. Looked up by the tools from the calling agent's scope; never global.
 */
import { serviceKey } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { ChildRegistry } from './children.js';
import { type ChildDescriptor, SubagentError, type SubagentParent } from './contract.js';
import type { SubagentRegistry } from './registry.js';

export interface SubagentServices {
  runtime: AgentRuntime;
  registry: SubagentRegistry;
  children: ChildRegistry;
  /** The provider the `subagent` tool uses; default `spawn`. */
  defaultProvider: string;
}

export const subagentServicesKey = serviceKey<SubagentServices>('subagent/services');

export interface Caller extends SubagentParent {
  sessionId: string;
  /** The depth limit this agent's line was started with, if one was given. */
  maxDepth?: number;
  /** Tools hidden from this agent; its own children inherit them (delegating cannot unhide). */
  toolFilter?: string[];
}

/** The calling agent as a parent: its session, depth, inherited depth limit and hidden tools. */
export function callerOf(services: SubagentServices, agentId: string): Caller {
  const handle = services.runtime.find(agentId);
  if (!handle)
    throw new SubagentError('UNKNOWN_AGENT', `the calling agent ${agentId} is not active`);
  const descriptor = handle.log.events.find((event) => event.type === 'subagent/descriptor');
  const { maxDepth, toolFilter } = (descriptor?.data as ChildDescriptor | undefined) ?? {};
  return {
    sessionId: agentId,
    delegationDepth: handle.log.header.delegationDepth,
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(toolFilter?.length ? { toolFilter: [...toolFilter] } : {}),
  };
}
