/**
 * The fixed words of the prompt box and the footer, shared by the ink components and the first
 * frame drawn before ink has loaded (first-frame.ts), so both say the same. Imports nothing of
 * ink or React and must never do: the first frame's path loads it.
 */
import { homedir } from 'node:os';

/** The prompt's placeholder while the agent is idle. */
export const IDLE_PLACEHOLDER = 'ask loom, / for commands, @ for files, ! for a shell command';
/** The prompt's placeholder while a turn runs. */
export const BUSY_PLACEHOLDER = 'working… enter steers it, ctrl+f queues a follow-up';
/** The footer's keys while the agent is idle. */
export const IDLE_KEYS = 'shift+tab mode · /help · ctrl+c twice exits';
export const DEFAULT_MODE_LABEL = '▶ default mode';
export const PLAN_MODE_LABEL = '⏸ plan mode';

/** The workspace as a person reads it: under the home folder it starts with `~`. */
export function shortWorkspace(workspace: string, home = homedir()): string {
  if (home.length > 1 && (workspace === home || workspace.startsWith(`${home}/`))) {
    return `~${workspace.slice(home.length)}`;
  }
  return workspace;
}
