/**
 * The answers-file answerer (`loom run --answers FILE`): a JSON object mapping a question's
 * `header` or full `question` text to a label, a list of labels (multiSelect) or free text, and
 * the key `plan` to "approve" or to feedback that rejects the plan. The file is read and checked
 * once, at start; a question it does not answer gets `NO_USER`, so the model decides itself. It
 * never invents an answer the file does not give.
 */
import { readFileSync } from 'node:fs';
import { errorMessage, UserError } from '../base/errors.js';
import {
  NO_USER_MESSAGE,
  type Question,
  type QuestionAnswer,
  type UserAnswerer,
  UserQuestionError,
} from './user-questions.js';

/** The key of a plan review's answer: "approve", or any other text as the rejection's feedback. */
export const PLAN_ANSWER_KEY = 'plan';
export const APPROVE_PLAN = 'approve';

/** Keyed by header or question text (a Map: keys such as `__proto__` stay plain keys). */
export type AnswersFile = ReadonlyMap<string, string | string[]>;

/** Reads and checks `path`; a bad file is a `UserError` naming the file and the entry at fault. */
export function readAnswersFile(path: string): AnswersFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--answers ${path}: cannot read it (${errorMessage(error)})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--answers ${path}: not valid JSON (${errorMessage(error)})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--answers ${path}: must be a JSON object mapping a question's header or text to an answer`,
    );
  }
  const answers = new Map<string, string | string[]>();
  for (const [key, value] of Object.entries(parsed)) {
    const fine =
      (typeof value === 'string' && value.trim().length > 0) ||
      (Array.isArray(value) &&
        key !== PLAN_ANSWER_KEY &&
        value.length > 0 &&
        value.every((item) => typeof item === 'string' && item.trim().length > 0));
    if (!fine) {
      throw new UserError(
        'INVALID_ARGUMENT',
        key === PLAN_ANSWER_KEY
          ? `--answers ${path}: "${key}" must be "${APPROVE_PLAN}" or the feedback that rejects the plan (got ${JSON.stringify(value)})`
          : `--answers ${path}: the answer to ${JSON.stringify(key)} must be a label, a list of labels, or free text (got ${JSON.stringify(value)})`,
      );
    }
    answers.set(key, value as string | string[]);
  }
  return answers;
}

function unanswered(detail: string): UserQuestionError {
  return new UserQuestionError('NO_USER', `${NO_USER_MESSAGE} (${detail})`);
}

/** One question's answer from the file's entry: labels it names, anything else as free text. */
function answerOf(question: Question, entry: string | string[], path: string): QuestionAnswer {
  const labels: string[] = [];
  const texts: string[] = [];
  for (const given of Array.isArray(entry) ? entry : [entry]) {
    const option =
      question.options.find((candidate) => candidate.label === given) ??
      question.options.find(
        (candidate) => candidate.label.toLowerCase() === given.trim().toLowerCase(),
      );
    if (option) {
      if (!labels.includes(option.label)) labels.push(option.label);
    } else texts.push(given);
  }
  if (!question.multiSelect && labels.length + texts.length > 1) {
    throw unanswered(
      `the answers file ${path} gives ${labels.length + texts.length} answers to the single-choice question ${JSON.stringify(question.question)}`,
    );
  }
  return {
    question: question.question,
    labels,
    ...(texts.length > 0 ? { text: texts.join('\n') } : {}),
  };
}

export function answersFileAnswerer(answers: AnswersFile, path: string): UserAnswerer {
  return {
    async answer(request, options) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (request.intent === 'plan-review') {
        const entry = answers.get(PLAN_ANSWER_KEY);
        if (typeof entry !== 'string') {
          throw unanswered(`the answers file ${path} has no "${PLAN_ANSWER_KEY}" entry`);
        }
        return entry.trim().toLowerCase() === APPROVE_PLAN
          ? { intent: 'plan-review', approved: true }
          : { intent: 'plan-review', approved: false, feedback: entry };
      }
      const replies = request.questions.map((question) => {
        const entry =
          answers.get(question.question) ??
          (question.header !== undefined ? answers.get(question.header) : undefined);
        if (entry === undefined) {
          throw unanswered(
            `the answers file ${path} does not answer ${JSON.stringify(question.question)}${question.header !== undefined ? ` (header ${JSON.stringify(question.header)})` : ''}`,
          );
        }
        return answerOf(question, entry, path);
      });
      return { intent: 'questions', answers: replies };
    },
  };
}
