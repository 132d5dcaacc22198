/**
 * Answers the user-questions service with an ACP form (`elicitation/create`, mode `form`), for
 * clients that advertise form elicitation: one form for all the questions, a choice field per
 * question (a multi-select one for multiSelect) and an optional "Other" text field beside it; a
 * plan review is an approve / reject choice with a feedback field. Only what the form returns is
 * an answer: declined or cancelled is `NO_USER`, a cancelled turn withdraws the form.
 */

import type {
  AgentContext,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  ElicitationSchema,
} from '@agentclientprotocol/sdk';
import { OTHER_LABEL } from '../interaction/questions-contract.js';
import {
  type AskOptions,
  NO_USER_MESSAGE,
  type Question,
  type QuestionAnswer,
  type UserAnswerer,
  UserQuestionError,
} from '../interaction/user-questions.js';
import { askEditor, cancelledBy } from './editor-request.js';

type FormContent = Record<string, unknown>;

const choiceField = (index: number) => `question_${index + 1}`;
const otherField = (index: number) => `question_${index + 1}_other`;

function questionFields(
  question: Question,
  index: number,
): Record<string, ElicitationPropertySchema> {
  const title = question.header ?? question.question;
  if (question.options.length === 0) {
    // Text only (an MCP form's text or number field): the answer is what is typed.
    return { [otherField(index)]: { type: 'string', title, description: question.question } };
  }
  const choices = question.options.map((option) => ({
    const: option.label,
    title: option.label,
    ...(option.description !== undefined ? { description: option.description } : {}),
  }));
  const choice: ElicitationPropertySchema = question.multiSelect
    ? { type: 'array', title, description: question.question, items: { anyOf: choices } }
    : { type: 'string', title, description: question.question, oneOf: choices };
  return {
    [choiceField(index)]: choice,
    [otherField(index)]: {
      type: 'string',
      title: `${OTHER_LABEL} (${title})`,
      description: 'Your own answer, instead of or besides the choices.',
    },
  };
}

/** One question's answer from the form: only labels the question offers, and any free text. */
function answerOf(question: Question, index: number, content: FormContent): QuestionAnswer {
  const picked = content[choiceField(index)];
  const given = Array.isArray(picked) ? picked : picked === undefined ? [] : [picked];
  const labels = question.options
    .map((option) => option.label)
    .filter((label) => given.includes(label));
  const other = content[otherField(index)];
  const text = typeof other === 'string' ? other.trim() : '';
  return { question: question.question, labels, ...(text.length > 0 ? { text } : {}) };
}

export function formQuestionAnswerer(client: AgentContext): UserAnswerer {
  const fill = async (
    options: AskOptions,
    message: string,
    requestedSchema: ElicitationSchema,
  ): Promise<FormContent> => {
    const { signal } = options;
    const response: CreateElicitationResponse = await askEditor(
      () =>
        client.request(
          'elicitation/create',
          {
            mode: 'form',
            sessionId: options.sessionId,
            ...(options.toolCallId !== undefined ? { toolCallId: options.toolCallId } : {}),
            message,
            requestedSchema,
          },
          cancelledBy(signal),
        ),
      signal,
    );
    if (response.action !== 'accept') {
      throw new UserQuestionError(
        'NO_USER',
        `the user ${response.action === 'decline' ? 'declined' : 'dismissed'} the question; ${NO_USER_MESSAGE}`,
      );
    }
    return ((response as { content?: FormContent | null }).content ?? {}) as FormContent;
  };
  return {
    async answer(request, options) {
      if (request.intent === 'plan-review') {
        const content = await fill(options, `Review the plan:\n\n${request.plan}`, {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              oneOf: [
                { const: 'approve', title: 'Approve', description: 'carry out the plan' },
                { const: 'reject', title: 'Keep planning', description: 'with your feedback' },
              ],
            },
            feedback: { type: 'string', title: 'Feedback', description: 'What should change.' },
          },
          required: ['decision'],
        });
        const feedback = typeof content.feedback === 'string' ? content.feedback.trim() : '';
        return content.decision === 'approve'
          ? { intent: 'plan-review', approved: true }
          : { intent: 'plan-review', approved: false, ...(feedback ? { feedback } : {}) };
      }
      const { questions } = request;
      const content = await fill(
        options,
        questions.length === 1
          ? (questions[0]?.question ?? '')
          : 'The agent has questions for you.',
        {
          type: 'object',
          properties: Object.assign({}, ...questions.map(questionFields)),
        },
      );
      return {
        intent: 'questions',
        answers: questions.map((question, index) => answerOf(question, index, content)),
      };
    },
  };
}
