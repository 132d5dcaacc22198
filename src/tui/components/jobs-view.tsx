/**
 * The `/jobs` view: this session's background jobs with kind, label, status and time. Up and
 * Down select one; Enter shows its latest output (a peek: the agent still reads all it has not
 * read), `k` stops it. It acts only through the job service, as the session that owns the jobs.
 */
import { Box, Text, useInput, useStdout } from 'ink';
import { useCallback, useState } from 'react';
import { errorMessage } from '../../base/errors.js';
import type { JobRecord, JobService, JobStatus } from '../../jobs/contract.js';
import {
  type EscapeSlot,
  formatDuration,
  rowWindow,
  stepIndex,
  useEscape,
  useKeyState,
  useNow,
} from './view-keys.js';

/** Rows kept for the prompt, the footer and the view's own lines. */
const RESERVED_ROWS = 12;
/** How often the open output is read again while its job runs. */
const OUTPUT_REFRESH_MS = 250;

export const KILLED_BY_USER = 'stopped by the user';

const STATUS_COLOR: Record<JobStatus, string> = {
  running: 'yellow',
  stopping: 'yellow',
  completed: 'green',
  failed: 'red',
  killed: 'gray',
};

export interface JobsViewProps {
  sessionId: string;
  jobs: JobService;
  width: number;
  escapeSlot?: EscapeSlot;
  /** False while another widget (an approval) has the keyboard; default true. */
  keysActive?: boolean;
}

export function JobsView({ sessionId, jobs, width, escapeSlot, keysActive = true }: JobsViewProps) {
  const { stdout } = useStdout();
  const height = Math.max(6, (stdout.rows ?? 40) - RESERVED_ROWS);
  const [selected, selection, setSelected] = useKeyState<string | undefined>(undefined);
  const [open, opened, setOpen] = useKeyState<string | undefined>(undefined);
  const [note, setNote] = useState<{ text: string; tone: 'info' | 'error' } | undefined>();
  const records = jobs.list(sessionId);
  const active = records.some(
    (record) => record.status === 'running' || record.status === 'stopping',
  );
  const now = useNow(active, open === undefined ? 1000 : OUTPUT_REFRESH_MS);
  const back = useCallback(() => {
    if (opened.current === undefined) return false;
    setOpen(undefined);
    return true;
  }, [opened, setOpen]);
  useEscape(escapeSlot, back);
  useInput(
    (input, key) => {
      const ids = jobs.list(sessionId).map((record) => record.id);
      if (opened.current === undefined && (key.upArrow || key.downArrow)) {
        if (ids.length === 0) return;
        const index = selection.current === undefined ? -1 : ids.indexOf(selection.current);
        const next = stepIndex(index, ids.length, key.downArrow);
        setSelected(ids[next]);
        setNote(undefined);
        return;
      }
      const id = opened.current ?? selection.current;
      if (id === undefined || !ids.includes(id)) return;
      if (key.return && opened.current === undefined) setOpen(id);
      else if (input === 'k') {
        try {
          const record = jobs.kill(id, sessionId, KILLED_BY_USER);
          setNote({ text: `${id} is ${record.status}`, tone: 'info' });
        } catch (error) {
          setNote({ text: errorMessage(error), tone: 'error' });
        }
      }
    },
    { isActive: keysActive },
  );
  const noteLine = note ? (
    <Text color={note.tone === 'error' ? 'red' : 'gray'}>{note.text}</Text>
  ) : null;
  if (open !== undefined) {
    let read: { output: string; record: JobRecord } | undefined;
    let problem: string | undefined;
    try {
      read = jobs.peek(open, sessionId);
    } catch (error) {
      problem = errorMessage(error);
    }
    const lines = (read?.output ?? '').replace(/\n+$/, '').split('\n');
    const shown = lines.slice(-Math.max(3, height - 2));
    return (
      <Box flexDirection="column">
        <Text bold wrap="truncate-end">
          {`${open} `}
          {read ? <JobStatusText record={read.record} now={now} /> : null}
          <Text dimColor>{' · k stop · esc back'}</Text>
        </Text>
        {problem ? <Text color="red">{problem}</Text> : null}
        {lines.length > shown.length ? (
          <Text dimColor>{`… ${lines.length - shown.length} earlier lines`}</Text>
        ) : null}
        {read && read.output.length === 0 ? <Text dimColor>No output yet.</Text> : null}
        {read && read.output.length > 0 ? (
          <Text>{shown.map((line) => line.slice(0, width)).join('\n')}</Text>
        ) : null}
        {noteLine}
      </Box>
    );
  }
  const selectedIndex = selected === undefined ? -1 : records.findIndex((r) => r.id === selected);
  const { start, end } = rowWindow(
    records.length,
    selectedIndex < 0 ? undefined : selectedIndex,
    height,
  );
  return (
    <Box flexDirection="column">
      <Text bold>
        Jobs<Text dimColor>{' · ↑↓ select · enter output · k stop · esc back'}</Text>
      </Text>
      {records.length === 0 ? <Text dimColor>This session has no background jobs.</Text> : null}
      {start > 0 ? <Text dimColor>{`  ↑ ${start} more`}</Text> : null}
      {records.slice(start, end).map((record) => {
        const isSelected = record.id === selected;
        return (
          <Text key={record.id} inverse={isSelected} wrap="truncate-end">
            {isSelected ? '› ' : '  '}
            {`${record.id.padEnd(12)} `}
            <JobStatusText record={record} now={now} />
            {` ${record.label}`}
            {record.summary ? <Text dimColor>{` — ${record.summary}`}</Text> : null}
          </Text>
        );
      })}
      {end < records.length ? <Text dimColor>{`  ↓ ${records.length - end} more`}</Text> : null}
      {noteLine}
    </Box>
  );
}

function JobStatusText({ record, now }: { record: JobRecord; now: number }) {
  return (
    <Text>
      <Text color={STATUS_COLOR[record.status]}>{record.status}</Text>
      <Text dimColor>{` ${formatDuration((record.endedAt ?? now) - record.startedAt)}`}</Text>
    </Text>
  );
}
