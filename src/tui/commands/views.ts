/**
 * The slash commands that open the live views of what this session started: `/agents` (its
 * children, and the agent types it can start) and `/jobs` (its background jobs). `/workflows`
 * sits with the skeleton's commands. They only switch the view; the views act.
 */
import type { SlashCommand } from './contract.js';

export const VIEW_COMMANDS: SlashCommand[] = [
  {
    name: 'agents',
    description:
      'this session’s agents (state, tokens, age; message or interrupt one) and the agent types it can start (esc returns)',
    run(_args, { setView }) {
      setView('agents');
    },
  },
  {
    name: 'jobs',
    description: 'this session’s background jobs: read output, stop one (esc returns)',
    run(_args, { setView }) {
      setView('jobs');
    },
  },
];
