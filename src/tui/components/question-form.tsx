/**
 * The questions of `ask_user_question`, one after another: a single choice (arrows and Enter, or
 * a digit), a multiple choice (Space or a digit toggles, Enter confirms), and on every question
 * "Other" with the person's own words. The answers reach the tool exactly as `QuestionAnswer`s
 * (the options chosen, in the order listed, and the free text when given), once, after the last
 * question. Earlier answers stay in view. It never answers for the person.
 */
import { Box, Text, useInput } from 'ink';
import { OTHER_LABEL } from '../../interaction/questions-contract.js';
import type { Question, QuestionAnswer } from '../../interaction/user-questions.js';
import type { PendingRequest } from '../contract.js';
import { type ChoiceRow, ChoiceRows, movedCursor, rowOfDigit } from './choice-rows.js';
import { editLine, TextLine } from './text-field.js';
import { useKeyState } from './use-key-state.js';

export type QuestionsRequest = Extract<PendingRequest, { kind: 'questions' }>;

interface FormState {
  index: number;
  cursor: number;
  /** Options checked (multiple choice), by position. */
  checked: readonly number[];
  /** The "Other" text given so far (multiple choice). */
  other: string | undefined;
  /** The "Other" text being typed, while its field is open. */
  draft: string | undefined;
  /** A nudge, such as choosing nothing and pressing Enter. */
  hint: string | undefined;
  answers: readonly QuestionAnswer[];
  done: boolean;
}

const FRESH = { cursor: 0, checked: [], other: undefined, draft: undefined, hint: undefined };

export function QuestionForm({ request }: { request: QuestionsRequest }) {
  const state = useKeyState<FormState>({ index: 0, answers: [], done: false, ...FRESH });
  const form = state.current;
  const question = request.questions[form.index];
  const update = (change: Partial<FormState>) => state.set({ ...state.current, ...change });

  const finish = (answer: QuestionAnswer) => {
    const current = state.current;
    const answers = [...current.answers, answer];
    if (current.index + 1 < request.questions.length) {
      state.set({ ...current, ...FRESH, index: current.index + 1, answers });
      return;
    }
    state.set({ ...current, answers, done: true });
    request.resolve(answers);
  };

  const toggle = (row: number, otherRow: number) => {
    const current = state.current;
    if (row === otherRow) {
      if (current.other !== undefined) update({ cursor: row, other: undefined, hint: undefined });
      else update({ cursor: row, draft: '', hint: undefined });
      return;
    }
    const checked = current.checked.includes(row)
      ? current.checked.filter((position) => position !== row)
      : [...current.checked, row];
    update({ cursor: row, checked, hint: undefined });
  };

  const submitOther = (text: string) => {
    const current = state.current;
    const asked = request.questions[current.index];
    const words = text.trim();
    if (!asked) return;
    if (words.length === 0) {
      update({ draft: undefined });
      return;
    }
    if (asked.multiSelect) update({ draft: undefined, other: words });
    else finish({ question: asked.question, labels: [], text: words });
  };

  useInput((input, key) => {
    const current = state.current;
    const asked = request.questions[current.index];
    if (!asked || current.done) return;
    if (current.draft !== undefined) {
      const edit = editLine(current.draft, input, key);
      if (edit.kind === 'text') update({ draft: edit.text });
      else submitOther(edit.text);
      return;
    }
    const otherRow = asked.options.length;
    const count = otherRow + 1;
    if (key.upArrow || key.downArrow) {
      update({ cursor: movedCursor(current.cursor, count, key), hint: undefined });
      return;
    }
    const digitRow = rowOfDigit(input, count);
    if (!asked.multiSelect) {
      const row = key.return ? current.cursor : digitRow;
      if (row === undefined) return;
      if (row === otherRow) update({ cursor: row, draft: '' });
      else finish({ question: asked.question, labels: [labelAt(asked, row)] });
      return;
    }
    const toggled = input === ' ' ? current.cursor : digitRow;
    if (toggled !== undefined) {
      toggle(toggled, otherRow);
      return;
    }
    if (!key.return) return;
    if (current.cursor === otherRow && current.other === undefined) {
      update({ draft: '' });
      return;
    }
    if (current.checked.length === 0 && current.other === undefined) {
      update({ hint: 'choose at least one (space toggles), or type your own under Other' });
      return;
    }
    finish({
      question: asked.question,
      labels: [...current.checked].sort((a, b) => a - b).map((row) => labelAt(asked, row)),
      ...(current.other !== undefined ? { text: current.other } : {}),
    });
  });

  if (!question) return null;
  const rows: ChoiceRow[] = [
    ...question.options.map((option, position) => ({
      ...option,
      checked: form.checked.includes(position),
    })),
    {
      label: OTHER_LABEL,
      description: form.other !== undefined ? `“${form.other}”` : 'type your own answer',
      checked: form.other !== undefined,
    },
  ];
  const total = request.questions.length;
  return (
    <Box borderStyle="round" borderColor="cyan" flexDirection="column" paddingX={1}>
      {form.answers.map((answer) => (
        <Text key={answer.question} dimColor>
          {`✓ ${answer.question} → ${answerText(answer)}`}
        </Text>
      ))}
      <Text>
        {total > 1 ? <Text dimColor>{`(${form.index + 1}/${total}) `}</Text> : null}
        {question.header ? <Text color="cyan">{`${question.header}: `}</Text> : null}
        <Text bold>{question.question}</Text>
      </Text>
      <ChoiceRows rows={rows} cursor={form.cursor} checkboxes={question.multiSelect === true} />
      {form.draft !== undefined ? (
        <TextLine
          label={`${OTHER_LABEL}:`}
          text={form.draft}
          placeholder="enter sends, empty goes back"
        />
      ) : (
        <Text dimColor>
          {question.multiSelect
            ? `↑↓ · space or 1-${rows.length} toggles · enter confirms`
            : `↑↓ enter · 1-${rows.length}`}
        </Text>
      )}
      {form.hint ? <Text color="yellow">{form.hint}</Text> : null}
    </Box>
  );
}

function labelAt(question: Question, row: number): string {
  return question.options[row]?.label ?? '';
}

function answerText(answer: QuestionAnswer): string {
  const parts = [...answer.labels];
  if (answer.text !== undefined) parts.push(`${OTHER_LABEL}: “${answer.text}”`);
  return parts.join(', ');
}
