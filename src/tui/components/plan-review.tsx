/**
 * The review of a plan `exit_plan_mode` presents: the plan as Markdown, then approve (plan mode
 * ends and the agent carries it out) or keep planning with feedback the model reads. Arrows and
 * Enter, the digits, or a / k choose. It answers the request exactly once.
 */
import { Box, Text, useInput } from 'ink';
import type { PendingRequest } from '../contract.js';
import { type ChoiceRow, ChoiceRows, movedCursor, rowOfDigit } from './choice-rows.js';
import { Markdown } from './markdown.js';
import { editLine, TextLine } from './text-field.js';
import { useKeyState } from './use-key-state.js';

export type PlanReviewRequest = Extract<PendingRequest, { kind: 'plan-review' }>;

const ROWS: readonly ChoiceRow[] = [
  { label: 'Approve', description: 'leave plan mode and carry the plan out' },
  { label: 'Keep planning', description: 'tell the agent what to change' },
];
const LETTERS = ['a', 'k'] as const;

type Stage = { kind: 'choose' } | { kind: 'feedback'; text: string } | { kind: 'answered' };

export function PlanReview({ request, width }: { request: PlanReviewRequest; width: number }) {
  const cursor = useKeyState(0);
  const stage = useKeyState<Stage>({ kind: 'choose' });
  const choose = (row: number) => {
    if (row === 1) {
      stage.set({ kind: 'feedback', text: '' });
      return;
    }
    stage.set({ kind: 'answered' });
    request.resolve({ approved: true });
  };
  useInput((input, key) => {
    const current = stage.current;
    if (current.kind === 'answered') return;
    if (current.kind === 'feedback') {
      const edit = editLine(current.text, input, key);
      if (edit.kind === 'text') {
        stage.set({ kind: 'feedback', text: edit.text });
        return;
      }
      stage.set({ kind: 'answered' });
      const feedback = edit.text.trim();
      request.resolve({ approved: false, ...(feedback ? { feedback } : {}) });
      return;
    }
    if (key.upArrow || key.downArrow) {
      cursor.set(movedCursor(cursor.current, ROWS.length, key));
      return;
    }
    if (key.return) {
      choose(cursor.current);
      return;
    }
    const letter = LETTERS.indexOf(input.toLowerCase() as (typeof LETTERS)[number]);
    const row = letter >= 0 ? letter : rowOfDigit(input, ROWS.length);
    if (row !== undefined) choose(row);
  });
  const shown = stage.current;
  return (
    <Box borderStyle="round" borderColor="magenta" flexDirection="column" paddingX={1}>
      <Text bold>Plan ready for review</Text>
      <Markdown text={request.plan} width={Math.max(10, width - 4)} />
      {shown.kind === 'feedback' ? (
        <TextLine label="What should change?" text={shown.text} placeholder="enter sends" />
      ) : (
        <>
          <ChoiceRows rows={ROWS} cursor={cursor.current} />
          <Text dimColor>↑↓ enter · 1-2 · a approve · k keep planning</Text>
        </>
      )}
    </Box>
  );
}
