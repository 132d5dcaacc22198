/**
 * The `/rewind` view. First the session's turns, each with its first prompt and what it changed
 * (files and lines, from one checkpoint to the next; the last turn's up to the workspace now):
 * Up and Down select, typing a number selects that turn, Enter picks it. Then what to rewind:
 * files and conversation, files only, conversation only (a digit or Enter picks; only the
 * conversation when the files cannot be restored, and it says why). For the files it shows the
 * diff the restore will apply (each path, then the patch, capped) and Enter restores; the
 * conversation goes on in a new session forked before the turn. Esc goes back one step, and
 * from the turns returns to the chat.
 */
import { Box, Text } from 'ink';
import { useEffect } from 'react';
import { errorMessage } from '../../base/errors.js';
import type { RewindRequest } from '../../checkpoint/rewind.js';
import {
  cappedPatch,
  changeLine,
  changeSummary,
  type TreeDiff,
  type TurnChanges,
} from '../../checkpoint/session-changes.js';
import {
  filesUnavailable,
  PREVIEW_PATCH_LINES,
  rewindPreview,
  rewindTurns,
  rewoundNotice,
} from '../commands/rewind.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiStore } from '../tui-store.js';
import { useCurrentInput } from '../use-current-input.js';
import { type ChoiceRow, ChoiceRows, movedCursor, rowOfDigit } from './choice-rows.js';
import { type EscapeSlot, rowWindow, stepIndex, useEscape, useKeyState } from './view-keys.js';

/** Turns shown at once; the list scrolls to keep the selection visible. */
const VISIBLE_TURNS = 10;
/** Paths listed under the selected turn. */
const LISTED_PATHS = 6;
/** Paths the confirmation lists before the patch. */
const PREVIEW_PATHS = 20;

interface Choice extends ChoiceRow {
  request: RewindRequest;
}

const CHOICES: readonly Choice[] = [
  {
    label: 'files and conversation',
    description: 'restore the files and go on in a new session from before this turn',
    request: { files: true, conversation: true },
  },
  {
    label: 'files only',
    description: 'restore the files; the conversation goes on here',
    request: { files: true, conversation: false },
  },
  {
    label: 'conversation only',
    description: 'go on in a new session from before this turn; the files stay as they are',
    request: { files: false, conversation: true },
  },
];

type Stage =
  | { kind: 'loading' }
  | { kind: 'turns' }
  | { kind: 'choice'; turn: TurnChanges; choices: readonly Choice[]; why?: string }
  | { kind: 'preview'; turn: TurnChanges; choice: Choice; preview?: TreeDiff }
  | { kind: 'working'; what: string }
  | { kind: 'failed'; message: string };

export interface RewindViewProps {
  session: TuiSession;
  store: TuiStore;
  width: number;
  /** Back to the chat. */
  close(): void;
  escapeSlot?: EscapeSlot;
  /** False while another widget (an approval) has the keyboard; default true. */
  keysActive?: boolean;
}

export function RewindView({
  session,
  store,
  width,
  close,
  escapeSlot,
  keysActive = true,
}: RewindViewProps) {
  const [stage, stageRef, setStage] = useKeyState<Stage>({ kind: 'loading' });
  const [turns, turnsRef, setTurns] = useKeyState<readonly TurnChanges[]>([]);
  const [selected, selection, setSelected] = useKeyState(0);
  const [cursor, cursorRef, setCursor] = useKeyState(0);
  const [, typedRef, setTyped] = useKeyState('');

  useEffect(() => {
    let live = true;
    rewindTurns(session).then(
      (loaded) => {
        if (!live) return;
        setTurns(loaded);
        setSelected(Math.max(0, loaded.length - 1));
        setStage({ kind: 'turns' });
      },
      (error: unknown) => live && setStage({ kind: 'failed', message: errorMessage(error) }),
    );
    return () => {
      live = false;
    };
  }, [session, setStage, setTurns, setSelected]);

  // Esc: one step back; while the rewind runs it is held, so the view stays until it is done.
  useEscape(escapeSlot, () => {
    const current = stageRef.current;
    if (current.kind === 'choice') setStage({ kind: 'turns' });
    else if (current.kind === 'preview') chooseTurn(current.turn);
    else return current.kind === 'working';
    return true;
  });

  function chooseTurn(turn: TurnChanges): void {
    const why =
      filesUnavailable(session) ??
      (turn.changed === undefined
        ? `no checkpoint at or after turn ${turn.turn.number}: the session changed no file through its tools since, so there is no file to restore`
        : undefined);
    const choices = why === undefined ? CHOICES : CHOICES.filter((choice) => !choice.request.files);
    setCursor(0);
    setStage({ kind: 'choice', turn, choices, ...(why !== undefined ? { why } : {}) });
  }

  function choose(turn: TurnChanges, choice: Choice): void {
    if (!choice.request.files) {
      run(turn, choice);
      return;
    }
    setStage({ kind: 'working', what: 'reading the checkpoint…' });
    rewindPreview(session, turn.turn).then(
      (preview) =>
        setStage({ kind: 'preview', turn, choice, ...(preview !== undefined ? { preview } : {}) }),
      (error: unknown) => setStage({ kind: 'failed', message: errorMessage(error) }),
    );
  }

  function run(turn: TurnChanges, choice: Choice): void {
    setStage({ kind: 'working', what: 'rewinding…' });
    const from = session.sessionId;
    const notes: string[] = [];
    session
      .rewind(store, turn.turn, choice.request, (line) => notes.push(line))
      .then(
        (outcome) => {
          close();
          for (const text of notes) store.add({ kind: 'notice', tone: 'info', text });
          store.add({
            kind: 'notice',
            tone: 'info',
            text: rewoundNotice(
              turn.turn,
              outcome,
              choice.request.files,
              outcome.forkedSession !== undefined ? { from, to: outcome.forkedSession } : undefined,
            ),
          });
        },
        (error: unknown) => {
          close();
          store.add({ kind: 'notice', tone: 'error', text: `/rewind: ${errorMessage(error)}` });
        },
      );
  }

  useCurrentInput(
    (input, key) => {
      const current = stageRef.current;
      if (current.kind === 'turns') {
        const count = turnsRef.current.length;
        if (count === 0) return;
        if (key.upArrow || key.downArrow) {
          setTyped('');
          setSelected(stepIndex(selection.current, count, key.downArrow));
        } else if (key.return) {
          setTyped('');
          const turn = turnsRef.current[selection.current];
          if (turn) chooseTurn(turn);
        } else if (/^\d$/.test(input)) {
          const longer = `${typedRef.current}${input}`;
          const typed = Number(longer) >= 1 && Number(longer) <= count ? longer : input;
          setTyped(typed);
          const number = Number(typed);
          if (number >= 1 && number <= count) setSelected(number - 1);
        } else if (key.backspace || key.delete) {
          setTyped(typedRef.current.slice(0, -1));
        }
      } else if (current.kind === 'choice') {
        const count = current.choices.length;
        if (key.upArrow || key.downArrow) setCursor(movedCursor(cursorRef.current, count, key));
        else {
          const row = key.return ? cursorRef.current : rowOfDigit(input, count);
          const choice = row === undefined ? undefined : current.choices[row];
          if (choice) choose(current.turn, choice);
        }
      } else if (current.kind === 'preview' && key.return) {
        run(current.turn, current.choice);
      }
    },
    { isActive: keysActive },
  );

  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <StageView stage={stage} turns={turns} selected={selected} cursor={cursor} />
    </Box>
  );
}

function StageView({
  stage,
  turns,
  selected,
  cursor,
}: {
  stage: Stage;
  turns: readonly TurnChanges[];
  selected: number;
  cursor: number;
}) {
  switch (stage.kind) {
    case 'loading':
      return <Text dimColor>rewind: reading the session's checkpoints…</Text>;
    case 'working':
      return <Text dimColor>{`rewind: ${stage.what}`}</Text>;
    case 'failed':
      return <Text color="red">{`rewind: ${stage.message} · esc returns`}</Text>;
    case 'turns':
      return <TurnList turns={turns} selected={selected} />;
    case 'choice':
      return (
        <>
          <Text bold>
            {`rewind to turn ${stage.turn.turn.number}: what goes back? · ↑↓ select · enter or a digit picks · esc goes back`}
          </Text>
          <Text wrap="truncate-end">{`  ${promptOf(stage.turn)}`}</Text>
          {stage.why ? <Text color="yellow">{stage.why}</Text> : null}
          <ChoiceRows rows={stage.choices} cursor={cursor} />
        </>
      );
    case 'preview':
      return <Preview stage={stage} />;
  }
}

function TurnList({ turns, selected }: { turns: readonly TurnChanges[]; selected: number }) {
  const { start, end } = rowWindow(turns.length, selected, VISIBLE_TURNS);
  const chosen = turns[selected];
  const paths = chosen?.changed ?? [];
  return (
    <>
      <Text bold>
        rewind to how a turn began · ↑↓ or its number selects · enter picks · esc returns
      </Text>
      {turns.slice(start, end).map((entry, offset) => {
        const index = start + offset;
        const here = index === selected;
        const last = index === turns.length - 1;
        const changes =
          entry.changed === undefined
            ? 'no checkpoint'
            : `${changeSummary(entry.changed)}${last ? ' (to now)' : ''}`;
        return (
          <Text key={entry.turn.id} wrap="truncate-end" inverse={here}>
            {`${here ? '›' : ' '} ${String(entry.turn.number).padStart(String(turns.length).length)}. ${promptOf(entry)} — ${changes}`}
          </Text>
        );
      })}
      {turns.length > VISIBLE_TURNS ? (
        <Text dimColor>{`${selected + 1} of ${turns.length}`}</Text>
      ) : null}
      {paths.slice(0, LISTED_PATHS).map((change) => (
        <Text key={change.path} dimColor wrap="truncate-end">{`    ${changeLine(change)}`}</Text>
      ))}
      {paths.length > LISTED_PATHS ? (
        <Text dimColor>{`    … ${paths.length - LISTED_PATHS} more`}</Text>
      ) : null}
    </>
  );
}

function Preview({ stage }: { stage: Extract<Stage, { kind: 'preview' }> }) {
  const number = stage.turn.turn.number;
  const conversation = stage.choice.request.conversation
    ? ', and the conversation goes on in a new session from before it'
    : '';
  const preview = stage.preview;
  if (preview === undefined || preview.changed.length === 0) {
    return (
      <>
        <Text
          bold
        >{`rewind to turn ${number}: the files are already as it began${conversation}`}</Text>
        <Text>enter goes on · esc goes back</Text>
      </>
    );
  }
  const patch = cappedPatch(preview.patch, PREVIEW_PATCH_LINES);
  return (
    <>
      <Text bold>{`restoring the files as turn ${number} began will change${conversation}:`}</Text>
      {preview.changed.slice(0, PREVIEW_PATHS).map((change) => (
        <Text key={change.path} wrap="truncate-end">{`  ${changeLine(change)}`}</Text>
      ))}
      {preview.changed.length > PREVIEW_PATHS ? (
        <Text dimColor>{`  … ${preview.changed.length - PREVIEW_PATHS} more paths`}</Text>
      ) : null}
      {patch.lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: patch lines repeat
        <Text key={index} wrap="truncate-end" color={patchColor(line)}>
          {line === '' ? ' ' : line}
        </Text>
      ))}
      {patch.omitted > 0 ? (
        <Text dimColor>{`… ${patch.omitted} more lines; all of it: ${preview.fullPatch}`}</Text>
      ) : null}
      <Text bold>enter restores · esc goes back</Text>
    </>
  );
}

function patchColor(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return undefined;
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('@@')) return 'cyan';
  return undefined;
}

function promptOf(entry: TurnChanges): string {
  return entry.turn.prompt === '' ? '(no prompt)' : entry.turn.prompt;
}
