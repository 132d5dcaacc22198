/**
 * The approval of a call an `ask` permission rule stopped: the call (a shell command in full,
 * other arguments in short) and why it asks, then yes once, yes always for this session (the
 * rule it adds is named), or no with a reason the model reads. Arrows and Enter, the digits or
 * y / a / n choose. It answers the request exactly once and never decides by itself.
 */
import { Box, Text, useInput } from 'ink';
import { SHELL_COMMAND_ARGUMENT, SHELL_TOOL } from '../../config/permissions.js';
import type { PendingRequest } from '../contract.js';
import { describeRule, ruleFor } from '../interaction-broker.js';
import { type ChoiceRow, ChoiceRows, movedCursor, rowOfDigit } from './choice-rows.js';
import { editLine, TextLine } from './text-field.js';
import { gist } from './tool-line.js';
import { useKeyState } from './use-key-state.js';

export type ApprovalRequest = Extract<PendingRequest, { kind: 'approval' }>;

/** A shell command is shown whole up to this many lines. */
const COMMAND_LINES = 8;
const LETTERS = ['y', 'a', 'n'] as const;
/** Longer descriptions of the rule "always" adds are named instead. */
const RULE_TEXT_LIMIT = 70;

type Stage = { kind: 'choose' } | { kind: 'reason'; text: string } | { kind: 'answered' };

export function Approval({ request }: { request: ApprovalRequest }) {
  const cursor = useKeyState(0);
  const stage = useKeyState<Stage>({ kind: 'choose' });
  const rows: ChoiceRow[] = [
    { label: 'Yes' },
    { label: `Yes, and allow ${alwaysText(request)} for the rest of this session` },
    { label: 'No, and tell the model why' },
  ];
  const choose = (row: number) => {
    if (row === 2) {
      stage.set({ kind: 'reason', text: '' });
      return;
    }
    stage.set({ kind: 'answered' });
    request.resolve({ decision: row === 0 ? 'once' : 'always' });
  };
  useInput((input, key) => {
    const current = stage.current;
    if (current.kind === 'answered') return;
    if (current.kind === 'reason') {
      const edit = editLine(current.text, input, key);
      if (edit.kind === 'text') {
        stage.set({ kind: 'reason', text: edit.text });
        return;
      }
      stage.set({ kind: 'answered' });
      const reason = edit.text.trim();
      request.resolve({ decision: 'no', ...(reason ? { reason } : {}) });
      return;
    }
    if (key.upArrow || key.downArrow) {
      cursor.set(movedCursor(cursor.current, rows.length, key));
      return;
    }
    if (key.return) {
      choose(cursor.current);
      return;
    }
    const letter = LETTERS.indexOf(input.toLowerCase() as (typeof LETTERS)[number]);
    const row = letter >= 0 ? letter : rowOfDigit(input, rows.length);
    if (row !== undefined) choose(row);
  });
  const shown = stage.current;
  return (
    <Box borderStyle="round" borderColor="yellow" flexDirection="column" paddingX={1}>
      <Text
        bold
      >{`Allow ${request.tool}${request.from ? ` (asked by ${request.from})` : ''}?`}</Text>
      <CallText tool={request.tool} args={request.arguments} />
      <Text dimColor>{request.reason}</Text>
      {shown.kind === 'reason' ? (
        <TextLine
          label="Why not?"
          text={shown.text}
          placeholder="the model reads this (enter sends, empty for no reason)"
        />
      ) : (
        <>
          <ChoiceRows rows={rows} cursor={cursor.current} />
          <Text dimColor>↑↓ enter · 1-3 · y yes · a always · n no</Text>
        </>
      )}
    </Box>
  );
}

/** What "always" allows; a long command is named, not repeated (it is shown in full above). */
function alwaysText(request: ApprovalRequest): string {
  const words = describeRule(ruleFor(request.tool, request.arguments));
  return words.length > RULE_TEXT_LIMIT ? `this exact ${request.tool} command` : words;
}

function CallText({ tool, args }: { tool: string; args: unknown }) {
  const command = (args as Record<string, unknown> | undefined)?.[SHELL_COMMAND_ARGUMENT];
  if (tool !== SHELL_TOOL || typeof command !== 'string') {
    return <Text>{gist(args, 200)}</Text>;
  }
  const lines = command.split('\n');
  const shown = lines.slice(0, COMMAND_LINES);
  const more = lines.length - shown.length;
  return (
    <Text>
      {`$ ${shown.join('\n  ')}`}
      {more > 0 ? <Text dimColor>{`\n  … ${more} more lines`}</Text> : null}
    </Text>
  );
}
