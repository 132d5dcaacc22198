/**
 * Agent types: named kinds of child agent (a reviewer, a tester), from the built-in ones
 * (`general-purpose`, `Explore`, `Plan`) and `NAME.md` files in `.loom/agents/`, `.claude/agents/`
 * and `~/.loom/agents/`. The subagent tool and a workflow's `agent(prompt, {agentType})` resolve a
 * type through this service into a child's persona, tools, model and effort.
 */
import { serviceKey } from '../core/context.js';
import type { ReasoningEffort } from '../llm/contract.js';
import type { SetupOrigin } from './project-folders.js';

export type AgentTypeOrigin = 'builtin' | SetupOrigin;

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
  /**
   * The child's system prompt: it replaces the persona section. Empty (the built-in
   * `general-purpose`, a file without a body): the child keeps Loom's own persona.
   */
  prompt: string;
  origin: AgentTypeOrigin;
  /** The file it was read from; absent for a built-in type. */
  path?: string;
  /** Where the types of the same name it hides came from, in precedence order; absent: none. */
  hides?: AgentTypeOrigin[];
}

/** A file (or folder) that could not be read as agent types; the name it claims stays unknown. */
export interface AgentTypeProblem {
  /**
   * The name the file claims (its front matter's `name`, else its file name); absent for a
   * folder that cannot be read.
   */
  name?: string;
  origin: SetupOrigin;
  path: string;
  /** What is wrong, field by field (`description: missing; effort: …`), without the path. */
  problem: string;
}

export interface AgentTypes {
  /** Every known type, one per name (a project's hides a personal one), sorted by name. */
  list(): AgentType[];
  /** The type called `name`, or undefined; never throws. */
  find(name: string): AgentType | undefined;
  /** The files that could not be read, in folder precedence then file order. */
  problems(): AgentTypeProblem[];
}

/** The type a child runs when its caller names none; a file of this name redefines it. */
export const DEFAULT_AGENT_TYPE = 'general-purpose';

export const agentTypesKey = serviceKey<AgentTypes>('project/agent-types');
