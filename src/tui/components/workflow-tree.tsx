/**
 * The `/workflows` view: each run with its phases and its agents running, done and failed,
 * tokens and time. Draws only.
 */
import { Box, Text } from 'ink';
import { formatTokens } from '../../workflow/run-events.js';
import type { WorkflowView } from '../tui-store.js';

export function WorkflowTree({ runs, now }: { runs: readonly WorkflowView[]; now: number }) {
  if (runs.length === 0) return <Text dimColor>No workflow has run in this session.</Text>;
  return (
    <Box flexDirection="column">
      {runs.map((run) => {
        const { state } = run;
        const seconds = Math.round(((run.endedAt ?? now) - run.startedAt) / 1000);
        return (
          <Box key={run.runId} flexDirection="column">
            <Text bold>
              {`${state.name || run.runId} `}
              <Text
                color={
                  run.stopReason === undefined
                    ? 'yellow'
                    : run.stopReason === 'completed'
                      ? 'green'
                      : 'red'
                }
              >
                {run.stopReason ?? 'running'}
              </Text>
              <Text
                dimColor
              >{` ${seconds}s · ${formatTokens(state.usage.input + state.usage.output)} tokens`}</Text>
            </Text>
            <Text>
              {`  agents: ${state.counts.running} running · ${state.counts.completed} done · ${state.counts.failed} failed · ${state.counts.cancelled} cancelled`}
            </Text>
            {state.phaseList().map((phase) => (
              <Text key={phase.title} dimColor={phase.status === 'pending'}>
                {`  ${phase.status === 'done' ? '✓' : phase.status === 'current' ? '▸' : '·'} ${phase.title}`}
              </Text>
            ))}
          </Box>
        );
      })}
    </Box>
  );
}
