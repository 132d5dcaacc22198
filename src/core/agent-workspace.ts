/**
 * The folder one agent works in when it is not the runtime's: a workflow child in its own git
 * worktree, say. Provided on that agent's scope (and so seen by its tool calls), it moves the
 * root its file tools resolve against and its commands run in; it never widens what they reach.
 */
import { type Context, serviceKey } from './context.js';

/** An absolute folder; absent on a scope: the runtime's workspace. */
export const agentWorkspaceKey = serviceKey<string>('core/agent-workspace');

/** The folder the agent of `context` works in, else `fallback`. */
export function agentWorkspaceOf(context: Context, fallback: string): string {
  return context.find(agentWorkspaceKey) ?? fallback;
}
