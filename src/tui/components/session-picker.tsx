/**
 * The `/resume` picker: this workspace's other sessions, newest first, with when each started,
 * its first prompt and its turns. Up and Down select, Enter reopens the selected one (its
 * history fills the transcript); Esc (handled by the app) returns. Never lists the open session.
 */
import { Box, Text } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionSummary } from '../../core/session-store.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiStore } from '../tui-store.js';
import { useCurrentInput } from '../use-current-input.js';
import type { ViewProps } from './view-panel.js';

/** Sessions shown at once; the list scrolls to keep the selection visible. */
const VISIBLE_ROWS = 10;

export interface SessionPickerProps {
  sessions: readonly SessionSummary[];
  width: number;
  onPick(sessionId: string): void;
}

function describe(summary: SessionSummary): string {
  if (summary.error) return `${summary.id}  (unreadable: ${summary.error})`;
  const when = summary.created.replace('T', ' ').slice(0, 16);
  const prompt = summary.firstPrompt === '' ? '(no prompt)' : summary.firstPrompt;
  return `${summary.id}  ${when}  ${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'}  ${prompt}`;
}

export function SessionPicker({ sessions, width, onPick }: SessionPickerProps) {
  const [selected, setSelected] = useState(0);
  const [listening, setListening] = useState(false);
  // Keys that arrive together are handled before a redraw: each reads the latest selection.
  const selection = useRef(0);
  const select = (index: number) => {
    selection.current = Math.max(0, Math.min(sessions.length - 1, index));
    setSelected(selection.current);
  };
  useCurrentInput((_input, key) => {
    if (key.upArrow) select(selection.current - 1);
    else if (key.downArrow) select(selection.current + 1);
    else if (key.return) {
      const pick = sessions[selection.current];
      if (pick && !pick.error) onPick(pick.id);
    }
  });
  // Effects run in order: once this one ran, the keys above are read, and the hint says so.
  useEffect(() => setListening(true), []);
  const first = Math.max(0, Math.min(selected - VISIBLE_ROWS + 1, sessions.length - VISIBLE_ROWS));
  const shown = useMemo(() => sessions.slice(first, first + VISIBLE_ROWS), [sessions, first]);
  if (sessions.length === 0) {
    return <Text dimColor>no other session in this workspace · esc returns</Text>;
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <Text
        bold
      >{`resume a session${listening ? ' · ↑↓ select · enter reopens · esc returns' : ''}`}</Text>
      {shown.map((summary, offset) => {
        const isSelected = first + offset === selected;
        return (
          <Text key={summary.id} wrap="truncate-end" inverse={isSelected}>
            {`${isSelected ? '›' : ' '} ${describe(summary)}`}
          </Text>
        );
      })}
      {sessions.length > VISIBLE_ROWS ? (
        <Text dimColor>{`${selected + 1} of ${sessions.length}`}</Text>
      ) : null}
    </Box>
  );
}

/** The picker over the terminal's session: picking reopens that session and returns to the chat. */
export function ResumeView({
  session,
  store,
  width,
  close,
}: Pick<ViewProps, 'session' | 'store' | 'width' | 'close'>) {
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
