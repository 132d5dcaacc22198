/**
 * The user-questions contract: how an agent asks the human something. Only a root agent may ask:
 * a delegated caller is refused (`DELEGATED_CALLER`), because an owned child that waits on a
 * human nobody is watching would block forever. Implementations (a terminal prompt, an editor
 * over ACP) sit behind `UserQuestions`; this module holds no UI.
 */
import { serviceKey } from '../core/context.js';
import { LoomError } from '../core/errors.js';

export interface UserQuestion {
  /** The asking agent's session and depth (0 for a root agent). */
  caller: { sessionId: string; delegationDepth: number };
  question: string;
  /** Offered answers; the human may still answer freely unless `strict`. */
  options?: string[];
  strict?: boolean;
  signal?: AbortSignal;
}

export interface UserAnswer {
  answer: string;
}

export interface UserQuestions {
  /** Rejects with `DELEGATED_CALLER` for a delegated caller, before anything is shown. */
  ask(question: UserQuestion): Promise<UserAnswer>;
}

export type UserQuestionErrorCode = 'DELEGATED_CALLER' | 'NO_HUMAN';

declare module '../core/errors.js' {
  interface LoomErrorCodeMap extends Record<UserQuestionErrorCode, true> {}
}

export class UserQuestionError extends LoomError<UserQuestionErrorCode> {}

export const userQuestionsKey = serviceKey<UserQuestions>('interaction/user-questions');

/** Wraps a way of asking so that only root agents reach it. */
export function rootOnlyQuestions(inner: UserQuestions['ask']): UserQuestions {
  return {
    ask(question) {
      if (question.caller.delegationDepth > 0) {
        return Promise.reject(
          new UserQuestionError(
            'DELEGATED_CALLER',
            `subagent ${question.caller.sessionId} may not ask the user; only the root agent can. Report the question to your parent instead.`,
          ),
        );
      }
      return inner(question);
    },
  };
}

/** For headless runs: nobody is there to answer. */
export const noHuman: UserQuestions = rootOnlyQuestions(() =>
  Promise.reject(
    new UserQuestionError(
      'NO_HUMAN',
      'no one is attached to answer questions in this headless run',
    ),
  ),
);
