/**
 * The user-questions contract: how an agent asks the human something, as multiple-choice
 * questions (`ask_user_question`) or a plan to review (`exit_plan_mode`). Only a root agent may
 * ask: the caller is named by its session id alone and its lineage is looked up in the runtime,
 * never taken from the caller, so a child cannot pass for the root (`DELEGATED_CALLER`). Where
 * nobody can answer, asking fails at once with `NO_USER`, never hangs. Waiting honours `signal`.
 * Answerers (a terminal prompt, an answers file, an editor over ACP) sit behind `UserAnswerer`;
 * this module holds no UI.
 */

import { LoomError } from '../base/errors.js';
import { serviceKey } from '../core/context.js';

export interface QuestionOption {
  label: string;
  description?: string;
}

export interface Question {
  question: string;
  /** A short label (a few words) that names the question; answers files may key on it. */
  header?: string;
  /** 2-4 choices; the human may always answer "Other" with free text instead. */
  options: QuestionOption[];
  multiSelect?: boolean;
}

export interface QuestionAnswer {
  question: string;
  /** The options chosen (one unless `multiSelect`); empty when only free text was given. */
  labels: string[];
  /** Free text ("Other"), when given. */
  text?: string;
}

export type UserRequest =
  | { intent: 'questions'; questions: Question[] }
  | { intent: 'plan-review'; plan: string };

export type UserReply =
  | { intent: 'questions'; answers: QuestionAnswer[] }
  | { intent: 'plan-review'; approved: boolean; feedback?: string };

export interface AskOptions {
  /** The asking agent's session: from the tool execution, never from the model's arguments. */
  sessionId: string;
  signal?: AbortSignal;
  /** The tool call that asks, when there is one (an ACP client ties the question to it). */
  toolCallId?: string;
}

/** One way of reaching the human. It is only ever given root callers. */
export interface UserAnswerer {
  /** Must honour `signal` (reject with its reason) and answer every question of the request. */
  answer(request: UserRequest, options: AskOptions): Promise<UserReply>;
}

export interface UserQuestions {
  /** Rejects with `DELEGATED_CALLER` for a delegated caller, before anything is shown. */
  ask(request: UserRequest, options: AskOptions): Promise<UserReply>;
}

export type UserQuestionErrorCode = 'DELEGATED_CALLER' | 'NO_USER';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<UserQuestionErrorCode, true> {}
}

export class UserQuestionError extends LoomError<UserQuestionErrorCode> {}

export const userQuestionsKey = serviceKey<UserQuestions>('interaction/user-questions');

/** How deep a session is in its delegation tree; `undefined` for a session nobody knows. */
export type LineageOf = (sessionId: string) => { delegationDepth: number } | undefined;

/**
 * Wraps an answerer so that only root agents reach it: the depth comes from `lineageOf` (the
 * runtime's own record of the session), and an unknown session is refused like a child.
 */
export function rootOnlyQuestions(lineageOf: LineageOf, answerer: UserAnswerer): UserQuestions {
  return {
    ask(request, options) {
      const lineage = lineageOf(options.sessionId);
      if (lineage === undefined || lineage.delegationDepth > 0) {
        return Promise.reject(
          new UserQuestionError(
            'DELEGATED_CALLER',
            `${lineage === undefined ? 'session' : 'subagent'} ${options.sessionId} may not ask the user; only the root agent can. Report the question to your parent instead.`,
          ),
        );
      }
      if (options.signal?.aborted) return Promise.reject(options.signal.reason);
      return answerer.answer(request, options);
    },
  };
}

export const NO_USER_MESSAGE = 'nobody can answer here; decide yourself and say what you assumed';

/** For headless runs with no answers: nobody is there, so every question fails at once. */
export const noUser: UserAnswerer = {
  answer: () => Promise.reject(new UserQuestionError('NO_USER', NO_USER_MESSAGE)),
};
