/**
 * Answers the user-questions service through the ACP client: with a form (question-form.ts) when
 * the client advertises form elicitation, else with `session/request_permission`, the one
 * user-choice request every ACP client implements: one request per question, one option
 * per label; a plan review is Approve / Reject. What it cannot carry, it says so: a multiSelect
 * question gets one choice, free text ("Other") cannot be typed, and a rejected plan has no
 * feedback, and a question with no options (text only) is `NO_USER` at once. A dismissed request
 * is `NO_USER`; a cancelled turn withdraws the request.
 */

import type { AgentContext, PermissionOption } from '@agentclientprotocol/sdk';
import {
  type AskOptions,
  NO_USER_MESSAGE,
  type QuestionAnswer,
  type UserAnswerer,
  UserQuestionError,
} from '../interaction/user-questions.js';
import { askEditor, cancelledBy } from './editor-request.js';
import { formQuestionAnswerer } from './question-form.js';

const APPROVE = 'approve';
const REJECT = 'reject';

/** The best way this client offers; `forms`: it advertised `elicitation.form` at initialize. */
export function clientQuestionAnswerer(client: AgentContext, forms: boolean): UserAnswerer {
  return forms ? formQuestionAnswerer(client) : permissionQuestionAnswerer(client);
}

/** The session of a question is the asking root's session, which is the ACP session. */
export function permissionQuestionAnswerer(client: AgentContext): UserAnswerer {
  let asked = 0;
  const choose = async (
    options: AskOptions,
    title: string,
    choices: PermissionOption[],
    rawInput: unknown,
  ): Promise<string> => {
    asked += 1;
    const { signal } = options;
    const response = await askEditor(
      () =>
        client.request(
          'session/request_permission',
          {
            sessionId: options.sessionId,
            toolCall: {
              toolCallId: options.toolCallId ?? `question-${asked}`,
              title,
              kind: 'other',
              status: 'pending',
              rawInput,
            },
            options: choices,
          },
          cancelledBy(signal),
        ),
      signal,
    );
    if (response.outcome.outcome !== 'selected') {
      throw new UserQuestionError('NO_USER', `the user dismissed the question; ${NO_USER_MESSAGE}`);
    }
    return response.outcome.optionId;
  };
  return {
    async answer(request, options) {
      if (request.intent === 'plan-review') {
        const chosen = await choose(
          options,
          'Approve the plan?',
          [
            { optionId: APPROVE, name: 'Approve', kind: 'allow_once' },
            { optionId: REJECT, name: 'Keep planning', kind: 'reject_once' },
          ],
          { plan: request.plan },
        );
        return { intent: 'plan-review', approved: chosen === APPROVE };
      }
      const answers: QuestionAnswer[] = [];
      for (const question of request.questions) {
        if (question.options.length === 0) {
          throw new UserQuestionError(
            'NO_USER',
            `${JSON.stringify(question.question)} takes typed text, which a permission request cannot carry; ${NO_USER_MESSAGE}`,
          );
        }
        const chosen = await choose(
          options,
          question.header ? `${question.header}: ${question.question}` : question.question,
          question.options.map((option, index) => ({
            optionId: `option-${index}`,
            name: option.label,
            kind: 'allow_once',
          })),
          question,
        );
        const option = question.options[Number(chosen.replace(/^option-/, ''))];
        if (!chosen.startsWith('option-') || !option) {
          throw new UserQuestionError(
            'NO_USER',
            `the editor answered with an unknown option ${JSON.stringify(chosen)}; ${NO_USER_MESSAGE}`,
          );
        }
        answers.push({ question: question.question, labels: [option.label] });
      }
      return { intent: 'questions', answers };
    },
  };
}
