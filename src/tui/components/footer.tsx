/**
 * The footer: model, workspace, context use, tokens and cost, running children, jobs and
 * workflows, the goal's round and the mode, and the keys that matter now. Draws only.
 */
import { Box, Text } from 'ink';
import { formatTokens } from '../../workflow/run-events.js';
import type { FooterState } from '../contract.js';

export function Footer({ footer }: { footer: FooterState }) {
  const parts = [
    footer.model,
    footer.workspace,
    `ctx ${formatTokens(footer.contextTokens)}`,
    `${formatTokens(footer.tokens.input)}↑ ${formatTokens(footer.tokens.output)}↓`,
    ...(footer.costUsd !== undefined ? [`$${footer.costUsd.toFixed(4)}`] : []),
    ...(footer.runningChildren > 0 ? [`${footer.runningChildren} agents`] : []),
    ...(footer.runningJobs > 0 ? [`${footer.runningJobs} jobs`] : []),
    ...(footer.runningWorkflows > 0 ? [`${footer.runningWorkflows} workflows`] : []),
    ...(footer.goal
      ? [`goal ${footer.goal.phase} round ${footer.goal.round}/${footer.goal.maxRounds}`]
      : []),
  ];
  const keys = footer.busy
    ? `esc interrupts · enter steers · ctrl+f follow-up${footer.queued ? ` · ${footer.queued} queued` : ''}`
    : 'shift+tab mode · /help · ctrl+c twice exits';
  return (
    <Box flexDirection="column">
      <Text dimColor>{parts.join(' · ')}</Text>
      <Text>
        <Text color={footer.mode === 'plan' ? 'magenta' : 'gray'}>
          {footer.mode === 'plan' ? '⏸ plan mode' : '▶ default mode'}
        </Text>
        <Text dimColor>{` · ${keys}`}</Text>
      </Text>
    </Box>
  );
}
