/**
 * The `/agents` view: the continuable children of this session with their state, tokens and
 * age, and under them the agent types a `subagent {agent_type}` call can start (with any file
 * that could not be read). Up and Down select a child; Enter opens its transcript, `m` writes it
 * a message (Enter sends, Esc cancels), `i` interrupts its turn (its queued messages are kept).
 * It acts only through the child registry, as the user.
 */
import { Box, Text, useInput, useStdout } from 'ink';
import { useCallback, useMemo, useState } from 'react';
import { errorMessage } from '../../base/errors.js';
import type { AgentRuntime } from '../../core/runtime.js';
import type { AgentTypes } from '../../project/agent-types-contract.js';
import type { ChildRegistry, ChildState } from '../../subagent/children.js';
import { formatTokens } from '../../workflow/run-events.js';
import { SessionFiguresCache } from '../agent-transcript.js';
import { AgentTranscriptPane } from './agent-transcript-pane.js';
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

export const INTERRUPTED_BY_USER = 'interrupted by the user';

const STATE_MARK: Record<ChildState, { mark: string; color: string }> = {
  running: { mark: '◌', color: 'yellow' },
  idle: { mark: '●', color: 'green' },
  stopped: { mark: '○', color: 'gray' },
};

type Mode = { kind: 'list' } | { kind: 'transcript'; id: string } | { kind: 'message'; id: string };

export interface AgentsViewProps {
  sessionId: string;
  registry: ChildRegistry;
  runtime: AgentRuntime;
  /** The agent types to list under the children; absent: none are listed. */
  agentTypes?: AgentTypes;
  width: number;
  escapeSlot?: EscapeSlot;
  /** False while another widget (an approval) has the keyboard; default true. */
  keysActive?: boolean;
}

export function AgentsView({
  sessionId,
  registry,
  runtime,
  agentTypes,
  width,
  escapeSlot,
  keysActive = true,
}: AgentsViewProps) {
  const { stdout } = useStdout();
  const typeLines = useMemo(() => agentTypeLines(agentTypes), [agentTypes]);
  const height = Math.max(
    6,
    (stdout.rows ?? 40) - RESERVED_ROWS - (typeLines.length > 0 ? typeLines.length + 1 : 0),
  );
  const figures = useMemo(() => new SessionFiguresCache(runtime), [runtime]);
  const [selected, selection, setSelected] = useKeyState<string | undefined>(undefined);
  const [mode, modeRef, setMode] = useKeyState<Mode>({ kind: 'list' });
  const [draft, draftRef, setDraft] = useKeyState('');
  const [note, setNote] = useState<{ text: string; tone: 'info' | 'error' } | undefined>();
  const children = registry.childrenOf(sessionId);
  const now = useNow(children.some((child) => child.state === 'running'));
  const back = useCallback(() => {
    if (modeRef.current.kind === 'list') return false;
    setMode({ kind: 'list' });
    setDraft('');
    return true;
  }, [modeRef, setMode, setDraft]);
  useEscape(escapeSlot, back);
  const act = (text: string, action: () => void) => {
    try {
      action();
      setNote({ text, tone: 'info' });
    } catch (error) {
      setNote({ text: errorMessage(error), tone: 'error' });
    }
  };
  useInput(
    (input, key) => {
      const current = modeRef.current;
      if (current.kind === 'message') {
        if (key.return) {
          const text = draftRef.current.trim();
          setMode({ kind: 'list' });
          setDraft('');
          if (text.length === 0) return;
          act(`sent to ${current.id}`, () => registry.sendMessage('user', current.id, text));
          return;
        }
        if (key.backspace || key.delete) {
          setDraft(draftRef.current.slice(0, -1));
          return;
        }
        if (key.ctrl || key.meta || key.escape || key.tab || key.upArrow || key.downArrow) return;
        if (input) setDraft(draftRef.current + input.replace(/[\r\n]+/g, ' '));
        return;
      }
      const ids = registry.childrenOf(sessionId).map((child) => child.id);
      if (key.upArrow || key.downArrow) {
        if (ids.length === 0) return;
        const index = selection.current === undefined ? -1 : ids.indexOf(selection.current);
        const next = stepIndex(index, ids.length, key.downArrow);
        setSelected(ids[next]);
        setNote(undefined);
        return;
      }
      const id = selection.current;
      if (id === undefined || !ids.includes(id)) return;
      if (key.return) setMode({ kind: 'transcript', id });
      else if (input === 'm') setMode({ kind: 'message', id });
      else if (input === 'i') {
        act(`interrupted ${id}`, () => registry.interrupt('user', id, INTERRUPTED_BY_USER));
      }
    },
    { isActive: keysActive && mode.kind !== 'transcript' },
  );
  if (mode.kind === 'transcript') {
    const child = children.find((candidate) => candidate.id === mode.id);
    return (
      <AgentTranscriptPane
        runtime={runtime}
        sessionId={mode.id}
        title={child?.description || mode.id}
        width={width}
        maxItems={Math.max(3, Math.floor(height / 2))}
        keysActive={keysActive}
      />
    );
  }
  const selectedIndex = selected === undefined ? -1 : children.findIndex((c) => c.id === selected);
  const { start, end } = rowWindow(
    children.length,
    selectedIndex < 0 ? undefined : selectedIndex,
    height,
  );
  return (
    <Box flexDirection="column">
      <Text bold>
        Agents
        <Text dimColor>
          {' · ↑↓ select · enter transcript · m message · i interrupt · esc back'}
        </Text>
      </Text>
      {children.length === 0 ? (
        <Text dimColor>
          This session has no agents to talk to (background subagents show here).
        </Text>
      ) : null}
      {start > 0 ? <Text dimColor>{`  ↑ ${start} more`}</Text> : null}
      {children.slice(start, end).map((child) => {
        const { mark, color } = STATE_MARK[child.state];
        const { tokens, createdAt } = figures.of(child.id);
        const isSelected = child.id === selected;
        const outcome =
          child.state !== 'running' && child.lastOutcome ? ` (last turn ${child.lastOutcome})` : '';
        const age = createdAt === undefined ? '' : ` · ${formatDuration(now - createdAt)} old`;
        return (
          <Text key={child.id} inverse={isSelected} wrap="truncate-end">
            {isSelected ? '› ' : '  '}
            <Text color={color}>{mark}</Text>
            {` ${child.state.padEnd(7)} ${child.description || '(no description)'} `}
            <Text dimColor={!isSelected}>
              {`${child.id} · ${formatTokens(tokens)} tokens${age}${outcome}`}
            </Text>
          </Text>
        );
      })}
      {end < children.length ? <Text dimColor>{`  ↓ ${children.length - end} more`}</Text> : null}
      {mode.kind === 'message' ? (
        <Text>
          <Text color="cyan">{`message to ${mode.id}: `}</Text>
          {draft}
          <Text inverse> </Text>
        </Text>
      ) : null}
      {note ? <Text color={note.tone === 'error' ? 'red' : 'gray'}>{note.text}</Text> : null}
      {typeLines.length > 0 ? (
        <Text bold>
          Agent types
          <Text dimColor>{' · subagent {agent_type} starts one'}</Text>
        </Text>
      ) : null}
      {typeLines.map((line) => (
        <Text key={line.key} wrap="truncate-end" {...(line.error ? { color: 'red' } : {})}>
          {`  ${line.name} `}
          <Text dimColor={!line.error}>{line.text}</Text>
        </Text>
      ))}
    </Box>
  );
}

interface TypeLine {
  key: string;
  name: string;
  text: string;
  error: boolean;
}

/** One line a type (name, origin, description) and one a file that could not be read. */
function agentTypeLines(agentTypes: AgentTypes | undefined): TypeLine[] {
  if (!agentTypes) return [];
  const types = agentTypes.list();
  const problems = agentTypes.problems();
  const width = Math.max(0, ...types.map((type) => type.name.length));
  return [
    ...types.map((type) => ({
      key: `type:${type.name}`,
      name: type.name.padEnd(width),
      text: `${type.origin.padEnd(8)} ${type.description.replace(/\s+/g, ' ')}`,
      error: false,
    })),
    ...problems.map((problem) => ({
      key: `problem:${problem.path}`,
      name: (problem.name ?? '-').padEnd(width),
      text: `error: ${problem.path}: ${problem.problem}`,
      error: true,
    })),
  ];
}
