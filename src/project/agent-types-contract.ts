/**
 * Agent types: named kinds of child agent (a reviewer, a tester), from the built-in ones
 * (`general-purpose`, `Explore`, `Plan`) and `NAME.md` files in `.loom/agents/`, `.claude/agents/`
 * and `~/.loom/agents/`. The subagent tool and a workflow's `agent(prompt, {agentType})` resolve a
 * type through this service into a child's persona, tools, model and effort.
 */
import { serviceKey } from '../core/context.js';
import type { ReasoningEffort } from '../llm/contract.js';
import type { SetupOrigin } from './project-folders.js';

export interface AgentType {
  /** As written (`reviewer`, `Explore`, `plugin:agent`). */
  name: string;
  /** One line for the subagent tool's description and `loom agents list`. */
  description: string;
  /** The tools the child may see, in Loom's names; absent: every tool its parent may offer. */
  tools?: string[];
  /** A model spec; absent: the caller's choice. */
  model?: string;
  effort?: ReasoningEffort;
  /** The child's system prompt: it replaces the persona section. */
  prompt: string;
  origin: 'builtin' | SetupOrigin;
  /** The file it was read from; absent for a built-in type. */
  path?: string;
}

export interface AgentTypes {
  /** Every known type, one per name (a project's hides a personal one), sorted by name. */
  list(): AgentType[];
  /** The type called `name`, or undefined; never throws. */
  find(name: string): AgentType | undefined;
}

export const agentTypesKey = serviceKey<AgentTypes>('project/agent-types');
