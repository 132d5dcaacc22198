/**
 * What `ask_user_question` writes in the asking session's log: `question/ask` when the question
 * goes out and exactly one `question/answer` for it (answered, refused or cancelled), paired by
 * the tool call's id. The log holds the human's answers, never anything the model could forge.
 */
import type { LoomErrorCode } from '../base/errors.js';
import type { Question, QuestionAnswer } from './user-questions.js';

export interface QuestionAskEvent {
  callId: string;
  questions: Question[];
}

export type QuestionAnswerEvent =
  | { callId: string; outcome: 'answered'; answers: QuestionAnswer[] }
  /** Nobody answered: `NO_USER`, `DELEGATED_CALLER`, or an answerer that failed. */
  | { callId: string; outcome: 'refused'; code?: LoomErrorCode; message: string }
  /** The turn was cancelled while the question waited. */
  | { callId: string; outcome: 'cancelled'; reason: string };

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'question/ask': QuestionAskEvent;
    'question/answer': QuestionAnswerEvent;
  }
}

export const ASK_USER_QUESTION_TOOL = 'ask_user_question';
/** The choice every question offers besides its options: the human's own words. */
export const OTHER_LABEL = 'Other';
