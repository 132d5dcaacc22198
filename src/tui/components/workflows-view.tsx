/**
 * The `/workflows` view: the live tree of every run; Up and Down select an agent, Enter opens its
 * transcript (read from its session), Esc goes back to the tree and then to the chat. Acts on
 * nothing: it only reads runs and sessions.
 */
import { Box, Text, useInput, useStdout } from 'ink';
import { useCallback, useMemo, useState } from 'react';
import type { AgentRuntime } from '../../core/runtime.js';
import { SessionFiguresCache } from '../agent-transcript.js';
import type { WorkflowAgentView, WorkflowView } from '../workflow-runs.js';
import { AgentTranscriptPane } from './agent-transcript-pane.js';
import { type EscapeSlot, stepIndex, useEscape, useKeyState, useNow } from './view-keys.js';
import { type AgentKey, treeRows, WorkflowTree } from './workflow-tree.js';

/** Rows kept for the prompt, the footer and the view's own lines. */
const RESERVED_ROWS = 12;

export interface WorkflowsViewProps {
  runs: readonly WorkflowView[];
  runtime: AgentRuntime;
  width: number;
  escapeSlot?: EscapeSlot;
  /** False while another widget (an approval) has the keyboard; default true. */
  keysActive?: boolean;
}

export function WorkflowsView({
  runs,
  runtime,
  width,
  escapeSlot,
  keysActive = true,
}: WorkflowsViewProps) {
  const { stdout } = useStdout();
  const height = Math.max(6, (stdout.rows ?? 40) - RESERVED_ROWS);
  const [selected, selection, setSelected] = useKeyState<AgentKey | undefined>(undefined);
  const [open, opened, setOpen] = useKeyState<AgentKey | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const figures = useMemo(() => new SessionFiguresCache(runtime), [runtime]);
  const runningTokens = useCallback(
    (agent: WorkflowAgentView) =>
      agent.sessionId === undefined ? undefined : figures.ofLive(agent.sessionId)?.tokens,
    [figures],
  );
  const now = useNow(runs.some((run) => run.stopReason === undefined));
  const back = useCallback(() => {
    if (!opened.current) return false;
    setOpen(undefined);
    return true;
  }, [opened, setOpen]);
  useEscape(escapeSlot, back);
  useInput(
    (_input, key) => {
      if (key.upArrow || key.downArrow) {
        const keys = treeRows(runs).flatMap((row) =>
          row.kind === 'agent' ? [{ runId: row.run.runId, seq: row.agent.seq }] : [],
        );
        if (keys.length === 0) return;
        const current = selection.current;
        const index = current
          ? keys.findIndex((entry) => entry.runId === current.runId && entry.seq === current.seq)
          : -1;
        const next = stepIndex(index, keys.length, key.downArrow);
        setSelected(keys[next]);
        setNote(undefined);
        return;
      }
      const current = selection.current;
      if (key.return && current) {
        const agent = runs.find((run) => run.runId === current.runId)?.agents.get(current.seq);
        if (agent?.sessionId) setOpen(current);
        else setNote('the session of this agent is not known, so its transcript cannot be shown');
      }
    },
    { isActive: keysActive && open === undefined },
  );
  if (open) {
    const agent = runs.find((run) => run.runId === open.runId)?.agents.get(open.seq);
    if (agent?.sessionId) {
      return (
        <AgentTranscriptPane
          runtime={runtime}
          sessionId={agent.sessionId}
          title={`#${agent.seq} ${agent.label}`}
          width={width}
          maxItems={Math.max(3, Math.floor(height / 2))}
          keysActive={keysActive}
        />
      );
    }
  }
  return (
    <Box flexDirection="column">
      <Text bold>
        Workflows<Text dimColor>{' · ↑↓ select an agent · enter transcript · esc back'}</Text>
      </Text>
      <WorkflowTree
        runs={runs}
        now={now}
        {...(selected ? { selected } : {})}
        maxRows={height}
        width={width}
        runningTokens={runningTokens}
      />
      {note ? <Text color="yellow">{note}</Text> : null}
    </Box>
  );
}
