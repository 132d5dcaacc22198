/**
 * The footer: model, workspace, context use, tokens and cost, running children, jobs and
 * workflows, the goal's round and the mode, and the keys that matter now. Draws only.
 */
import { Box, Text } from 'ink';
import { formatCost } from '../../llm/prices.js';
import { formatTokens } from '../../workflow/run-events.js';
import { DEFAULT_MODE_LABEL, IDLE_KEYS, PLAN_MODE_LABEL, shortWorkspace } from '../chrome-text.js';
import type { FooterState } from '../contract.js';

export { formatCost, shortWorkspace };

function contextPart(footer: FooterState): string {
  const used = formatTokens(footer.contextTokens);
  if (!footer.contextWindow) return `ctx ${used}`;
  const percent = Math.round((footer.contextTokens / footer.contextWindow) * 100);
  return `ctx ${percent}% of ${formatTokens(footer.contextWindow)}`;
}

function goalPart(goal: NonNullable<FooterState['goal']>): string {
  const state = goal.armed ? 'running' : goal.phase === 'active' ? 'stopped' : goal.phase;
  return `goal ${state} round ${goal.round}/${goal.maxRounds}`;
}

export interface FooterProps {
  footer: FooterState;
  /** A request (approval, question, plan review) has the keyboard: its keys are shown with it. */
  requestOpen?: boolean;
}

export function Footer({ footer, requestOpen = false }: FooterProps) {
  const parts = [
    footer.model,
    shortWorkspace(footer.workspace),
    contextPart(footer),
    `${formatTokens(footer.tokens.input)}↑ ${formatTokens(footer.tokens.output)}↓`,
    ...(footer.costUsd !== undefined ? [formatCost(footer.costUsd)] : []),
  ];
  // The second line: what runs now, kept apart so a long model or path never pushes it away.
  const activity = [
    ...(footer.runningChildren > 0 ? [count(footer.runningChildren, 'agent')] : []),
    ...(footer.runningJobs > 0 ? [count(footer.runningJobs, 'job')] : []),
    ...(footer.runningWorkflows > 0 ? [count(footer.runningWorkflows, 'workflow')] : []),
    ...(footer.goal ? [goalPart(footer.goal)] : []),
  ];
  const keys = requestOpen
    ? 'answer the request above · esc interrupts'
    : footer.busy
      ? `esc interrupts · enter steers · ctrl+f follow-up${footer.queued ? ` · ${footer.queued} queued` : ''}`
      : IDLE_KEYS;
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-middle">
        {parts.join(' · ')}
      </Text>
      <Text wrap="truncate-end">
        <Text color={footer.mode === 'plan' ? 'magenta' : 'gray'}>
          {footer.mode === 'plan' ? PLAN_MODE_LABEL : DEFAULT_MODE_LABEL}
        </Text>
        {activity.length > 0 ? <Text color="cyan">{` · ${activity.join(' · ')}`}</Text> : null}
        <Text dimColor>{` · ${keys}`}</Text>
      </Text>
    </Box>
  );
}

function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? '' : 's'}`;
}
