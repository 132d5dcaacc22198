/**
 * The `/workflows` tree: each run with its phases, and under each phase its agents running,
 * done, failed or cancelled, with label, tokens and time; the selected agent is marked. Only the
 * rows around the selection are drawn, so a run of hundreds of agents stays a short screen.
 * Draws only.
 */
import { Box, Text } from 'ink';
import { formatTokens } from '../../workflow/run-events.js';
import type { WorkflowAgentStatus, WorkflowAgentView, WorkflowView } from '../workflow-runs.js';
import { formatDuration, rowWindow } from './view-keys.js';

/** An agent of a run, as the selection names it. */
export interface AgentKey {
  runId: string;
  seq: number;
}

export type TreeRow =
  | { kind: 'run'; run: WorkflowView }
  | { kind: 'phase'; run: WorkflowView; title: string; status: PhaseRowStatus }
  | { kind: 'agent'; run: WorkflowView; agent: WorkflowAgentView };

/** A phase's state in the tree; `stopped` is the phase a failed or cancelled run ended in. */
type PhaseRowStatus = 'done' | 'current' | 'pending' | 'stopped';

/** Every row of the tree in drawing order: a run, its phases, each phase's agents. */
export function treeRows(runs: readonly WorkflowView[]): TreeRow[] {
  const rows: TreeRow[] = [];
  for (const run of runs) {
    rows.push({ kind: 'run', run });
    const declared = run.state.phaseList();
    const titles = new Set(declared.map((phase) => phase.title));
    const phases = [
      ...declared,
      ...[...run.phases.keys()]
        .filter((title) => !titles.has(title))
        .map((title) => ({ title, status: 'done' as const })),
    ];
    for (const phase of phases) {
      const agents = run.phases.get(phase.title)?.agents ?? [];
      const running = agents.some((agent) => agent.status === 'running');
      const status = running ? 'current' : phaseAfterEnd(run, phase.status);
      rows.push({ kind: 'phase', run, title: phase.title, status });
      for (const agent of agents) rows.push({ kind: 'agent', run, agent });
    }
  }
  return rows;
}

/** Once a run ended, no phase of it is in progress: its last one is done, or where it stopped. */
function phaseAfterEnd(run: WorkflowView, status: 'done' | 'current' | 'pending'): PhaseRowStatus {
  if (status !== 'current' || run.stopReason === undefined) return status;
  return run.stopReason === 'completed' ? 'done' : 'stopped';
}

export const isSelected = (row: TreeRow, selected: AgentKey | undefined): boolean =>
  row.kind === 'agent' &&
  selected !== undefined &&
  row.run.runId === selected.runId &&
  row.agent.seq === selected.seq;

const STATUS_MARK: Record<WorkflowAgentStatus, { mark: string; color: string }> = {
  running: { mark: '◌', color: 'yellow' },
  completed: { mark: '✓', color: 'green' },
  failed: { mark: '✗', color: 'red' },
  cancelled: { mark: '⊘', color: 'gray' },
};

const PHASE_MARK: Record<PhaseRowStatus, string> = {
  done: '✓',
  current: '▸',
  pending: '·',
  stopped: '✗',
};

export interface WorkflowTreeProps {
  runs: readonly WorkflowView[];
  now: number;
  selected?: AgentKey;
  /** Rows drawn at most (the selection stays among them); default every row. */
  maxRows?: number;
  width?: number;
  /** Tokens a running agent has used so far, when its session can be read; drawn rows only. */
  runningTokens?: (agent: WorkflowAgentView) => number | undefined;
}

export function WorkflowTree({
  runs,
  now,
  selected,
  maxRows,
  width = 100,
  runningTokens,
}: WorkflowTreeProps) {
  if (runs.length === 0) return <Text dimColor>No workflow has run in this session.</Text>;
  const rows = treeRows(runs);
  const selectedIndex = rows.findIndex((row) => isSelected(row, selected));
  const { start, end } = rowWindow(
    rows.length,
    selectedIndex < 0 ? undefined : selectedIndex,
    maxRows ?? rows.length,
  );
  return (
    <Box flexDirection="column">
      {start > 0 ? <Text dimColor>{`  ↑ ${start} more rows`}</Text> : null}
      {rows.slice(start, end).map((row) => (
        <TreeRowView
          key={rowKey(row)}
          row={row}
          now={now}
          selected={isSelected(row, selected)}
          width={width}
          {...(runningTokens ? { runningTokens } : {})}
        />
      ))}
      {end < rows.length ? <Text dimColor>{`  ↓ ${rows.length - end} more rows`}</Text> : null}
    </Box>
  );
}

function rowKey(row: TreeRow): string {
  switch (row.kind) {
    case 'run':
      return row.run.runId;
    case 'phase':
      return `${row.run.runId}/phase/${row.title}`;
    case 'agent':
      return `${row.run.runId}/${row.agent.seq}`;
  }
}

function TreeRowView({
  row,
  now,
  selected,
  width,
  runningTokens,
}: {
  row: TreeRow;
  now: number;
  selected: boolean;
  width: number;
  runningTokens?: (agent: WorkflowAgentView) => number | undefined;
}) {
  switch (row.kind) {
    case 'run': {
      const { run } = row;
      const { state } = run;
      const counts = state.counts;
      const status = run.stopReason ?? 'running';
      const color = status === 'running' ? 'yellow' : status === 'completed' ? 'green' : 'red';
      const started = counts.running + counts.completed + counts.failed + counts.cancelled;
      // Ended agents are counted in the run's usage; running ones by what they used so far.
      let tokens = state.usage.input + state.usage.output;
      if (runningTokens && counts.running > 0) {
        for (const agent of run.agents.values()) {
          if (agent.status === 'running') tokens += runningTokens(agent) ?? 0;
        }
      }
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold wrap="truncate-end">
            {`${state.name || run.runId} `}
            <Text color={color}>{status}</Text>
            <Text dimColor>
              {` · ${started} agents: ${counts.running} running · ${counts.completed} done · ${counts.failed} failed${counts.cancelled > 0 ? ` · ${counts.cancelled} cancelled` : ''} · ${formatTokens(tokens)} tokens · ${formatDuration((run.endedAt ?? now) - run.startedAt)}`}
            </Text>
          </Text>
          {run.error ? (
            <Text
              color="red"
              wrap="truncate-end"
            >{`  ${run.error.code}: ${run.error.message}`}</Text>
          ) : null}
        </Box>
      );
    }
    case 'phase': {
      const mark = PHASE_MARK[row.status];
      const counts = row.run.phases.get(row.title)?.counts;
      const summary = counts
        ? ` (${[
            counts.running > 0 ? `${counts.running} running` : '',
            counts.completed > 0 ? `${counts.completed} done` : '',
            counts.failed > 0 ? `${counts.failed} failed` : '',
            counts.cancelled > 0 ? `${counts.cancelled} cancelled` : '',
          ]
            .filter(Boolean)
            .join(' · ')})`
        : '';
      return (
        <Text dimColor={row.status === 'pending'} wrap="truncate-end">
          {`  ${mark} ${row.title || '(no phase)'}${summary}`}
        </Text>
      );
    }
    case 'agent': {
      const { agent } = row;
      const { mark, color } = STATUS_MARK[agent.status];
      const used = agent.usage
        ? agent.usage.input + agent.usage.output
        : agent.status === 'running'
          ? runningTokens?.(agent)
          : undefined;
      const tokens = used ? `${formatTokens(used)} tokens` : '';
      const time = formatDuration((agent.endedAt ?? now) - agent.startedAt);
      const details = [agent.status === 'completed' ? 'done' : agent.status, tokens, time]
        .filter(Boolean)
        .join(' · ');
      const reason = agent.reason ? ` — ${agent.reason}` : '';
      const labelWidth = Math.max(10, Math.min(48, width - details.length - 16));
      const label =
        agent.label.length > labelWidth ? `${agent.label.slice(0, labelWidth - 1)}…` : agent.label;
      return (
        <Text inverse={selected} wrap="truncate-end">
          {selected ? '  › ' : '    '}
          <Text color={color}>{mark}</Text>
          {` #${agent.seq} ${label.padEnd(labelWidth)} `}
          <Text dimColor={!selected}>{`${details}${reason}`}</Text>
        </Text>
      );
    }
  }
}
