/**
 * The `/resume` picker: this workspace's other sessions, the one used last first, in aligned
 * columns (id, when it was last used in local time, turns, first prompt). Typing filters the
 * list (by id or first prompt, ignoring case; Backspace takes a character back); Up and Down
 * select, Enter reopens the selected one (its history fills the transcript); Esc (handled by
 * the app) returns. Never lists the open session.
 */
import { Box, Text } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionSummary } from '../../core/session-store.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiStore } from '../tui-store.js';
import { useCurrentInput } from '../use-current-input.js';
import { editLine } from './text-field.js';

/** Sessions shown at once; the list scrolls to keep the selection visible. */
const VISIBLE_ROWS = 10;

export interface SessionPickerProps {
  sessions: readonly SessionSummary[];
  width: number;
  onPick(sessionId: string): void;
}

/** `2026-11-30 10:00:05` in the local time zone; the text itself when it is not a time. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

const HEADERS = { id: 'session', when: 'last used', turns: 'turns', prompt: 'first prompt' };

interface PickerRow {
  id: string;
  when: string;
  turns: string;
  prompt: string;
}

function rowOf(summary: SessionSummary): PickerRow {
  return {
    id: summary.id,
    when: localTime(summary.lastUsed),
    turns: summary.error ? '' : String(summary.turns),
    prompt: summary.error
      ? `(unreadable: ${summary.error})`
      : summary.firstPrompt === ''
        ? '(no prompt)'
        : summary.firstPrompt,
  };
}

/** The rows' text with every column padded to its widest cell, the header first. */
export function alignedRows(rows: readonly PickerRow[]): { header: string; lines: string[] } {
  const widths = {
    id: Math.max(HEADERS.id.length, ...rows.map((row) => row.id.length)),
    when: Math.max(HEADERS.when.length, ...rows.map((row) => row.when.length)),
    turns: Math.max(HEADERS.turns.length, ...rows.map((row) => row.turns.length)),
  };
  const line = (row: PickerRow) =>
    `${row.id.padEnd(widths.id)}  ${row.when.padEnd(widths.when)}  ${row.turns.padStart(widths.turns)}  ${row.prompt}`;
  return { header: line(HEADERS), lines: rows.map(line) };
}

/** Whether a session matches the typed filter (its id or first prompt, ignoring case). */
export function matchesFilter(summary: SessionSummary, filter: string): boolean {
  const wanted = filter.trim().toLowerCase();
  if (wanted === '') return true;
  return `${summary.id} ${summary.firstPrompt}`.toLowerCase().includes(wanted);
}

export function SessionPicker({ sessions, width, onPick }: SessionPickerProps) {
  const [selected, setSelected] = useState(0);
  const [filter, setFilter] = useState('');
  const [listening, setListening] = useState(false);
  // Keys that arrive together are handled before a redraw: each reads the latest state.
  const selection = useRef(0);
  const filterRef = useRef('');
  const matching = (text: string) => sessions.filter((summary) => matchesFilter(summary, text));
  const select = (index: number, count: number) => {
    selection.current = Math.max(0, Math.min(count - 1, index));
    setSelected(selection.current);
  };
  useCurrentInput((input, key) => {
    const shownNow = matching(filterRef.current);
    if (key.upArrow) select(selection.current - 1, shownNow.length);
    else if (key.downArrow) select(selection.current + 1, shownNow.length);
    else if (key.return) {
      const pick = shownNow[selection.current];
      if (pick && !pick.error) onPick(pick.id);
    } else {
      const edit = editLine(filterRef.current, input, key);
      if (edit.text === filterRef.current) return;
      filterRef.current = edit.text;
      setFilter(edit.text);
      select(0, matching(edit.text).length);
    }
  });
  // Effects run in order: once this one ran, the keys above are read, and the hint says so.
  useEffect(() => setListening(true), []);
  const filtered = useMemo(
    () => sessions.filter((summary) => matchesFilter(summary, filter)),
    [sessions, filter],
  );
  const table = useMemo(() => alignedRows(filtered.map(rowOf)), [filtered]);
  const first = Math.max(0, Math.min(selected - VISIBLE_ROWS + 1, filtered.length - VISIBLE_ROWS));
  if (sessions.length === 0) {
    return <Text dimColor>no other session in this workspace · esc returns</Text>;
  }
  const keys = ' · type to filter · ↑↓ select · enter reopens · esc returns';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <Text bold>{`resume a session${listening ? keys : ''}`}</Text>
      {filter !== '' ? (
        <Text color="cyan">{`filter: ${filter} (${filtered.length} of ${sessions.length})`}</Text>
      ) : null}
      <Text dimColor wrap="truncate-end">{`  ${table.header}`}</Text>
      {table.lines.slice(first, first + VISIBLE_ROWS).map((line, offset) => {
        const index = first + offset;
        const isSelected = index === selected;
        return (
          <Text key={filtered[index]?.id} wrap="truncate-end" inverse={isSelected}>
            {`${isSelected ? '›' : ' '} ${line}`}
          </Text>
        );
      })}
      {filtered.length === 0 ? <Text dimColor>no session matches</Text> : null}
      {filtered.length > VISIBLE_ROWS ? (
        <Text dimColor>{`${selected + 1} of ${filtered.length}`}</Text>
      ) : null}
    </Box>
  );
}

export interface ResumeViewProps {
  session: TuiSession;
  store: TuiStore;
  width: number;
  /** Back to the chat. */
  close(): void;
}

/** The picker over the terminal's session: picking reopens that session and returns to the chat. */
export function ResumeView({ session, store, width, close }: ResumeViewProps) {
  const sessions = useMemo(
    () => session.storedSessions().filter((summary) => summary.id !== session.sessionId),
    [session],
  );
  return (
    <SessionPicker
      sessions={sessions}
      width={width}
      onPick={(sessionId) => {
        close();
        void reopen(session, store, sessionId);
      }}
    />
  );
}

async function reopen(session: TuiSession, store: TuiStore, sessionId: string): Promise<void> {
  try {
    await session.switchTo(store, sessionId);
    store.add({ kind: 'notice', tone: 'info', text: `resumed session ${sessionId}` });
  } catch (error) {
    store.add({
      kind: 'notice',
      tone: 'error',
      text: `/resume ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}
