/**
 * The `ask_user_question` tool: 1-4 multiple-choice questions (2-4 options each, "Other" with
 * free text always allowed) put to the human through the user-questions service. The caller is
 * named by the tool execution's agent id only, never by anything in the arguments, so a child
 * that forges a depth or a session id is still refused (`DELEGATED_CALLER`). Logs
 * `question/ask` and one `question/answer` per call; it never decides an answer itself.
 */
import type { z } from 'zod';
import { errorMessage, LoomError, UserError } from '../base/errors.js';
import { agentAsksUser } from '../core/agent-hooks.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionLog } from '../core/session-log.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import {
  ASK_USER_QUESTION_TOOL,
  OTHER_LABEL,
  type QuestionAnswerEvent,
} from './questions-contract.js';
import { type Question, type QuestionAnswer, userQuestionsKey } from './user-questions.js';

const MAX_QUESTIONS = 4;
const MIN_OPTIONS = 2;
const MAX_OPTIONS = 4;
/** A person may take a while to answer; the turn's signal, not a timer, ends the wait. */
const ANSWER_WAIT_MS = 24 * 60 * 60 * 1000;

const optionSchema = (zod: typeof z) =>
  zod.strictObject({
    label: zod.string().min(1).describe('The choice, in a few words.'),
    description: zod.string().optional().describe('What choosing it means.'),
  });

const questionSchema = (zod: typeof z) =>
  zod.strictObject({
    question: zod.string().min(1).describe('The full question, ending with a question mark.'),
    header: zod.string().optional().describe('A short name for the question (a few words).'),
    options: zod.array(optionSchema(zod)).describe(`${MIN_OPTIONS}-${MAX_OPTIONS} choices.`),
    multiSelect: zod.boolean().optional().describe('Whether several options may be chosen.'),
  });

/** Loose at the top: stray keys (a forged depth or session id) are ignored, never trusted. */
const argumentsSchema = (zod: typeof z) =>
  zod.looseObject({
    questions: zod.array(questionSchema(zod)).describe(`1-${MAX_QUESTIONS} questions.`),
  });

/** Checks the limits, naming the question at fault; returns the questions without stray keys. */
export function checkQuestions(questions: readonly Question[]): Question[] {
  if (questions.length < 1 || questions.length > MAX_QUESTIONS) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `ask_user_question takes 1-${MAX_QUESTIONS} questions (got ${questions.length})`,
    );
  }
  const seen = new Set<string>();
  return questions.map((question, index) => {
    const name = `question ${index + 1} (${JSON.stringify(question.question)})`;
    if (seen.has(question.question)) {
      throw new UserError('INVALID_ARGUMENT', `${name} is asked twice; ask each question once`);
    }
    seen.add(question.question);
    const count = question.options.length;
    if (count < MIN_OPTIONS || count > MAX_OPTIONS) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `${name} needs ${MIN_OPTIONS}-${MAX_OPTIONS} options (got ${count}); "${OTHER_LABEL}" with free text is always offered, so do not list it`,
      );
    }
    const labels = new Set<string>();
    for (const option of question.options) {
      if (labels.has(option.label)) {
        throw new UserError('INVALID_ARGUMENT', `${name} lists the option "${option.label}" twice`);
      }
      if (option.label.toLowerCase() === OTHER_LABEL.toLowerCase()) {
        throw new UserError(
          'INVALID_ARGUMENT',
          `${name}: do not list "${OTHER_LABEL}"; free text is always offered`,
        );
      }
      labels.add(option.label);
    }
    return {
      question: question.question,
      ...(question.header !== undefined ? { header: question.header } : {}),
      options: question.options.map((option) => ({
        label: option.label,
        ...(option.description !== undefined ? { description: option.description } : {}),
      })),
      ...(question.multiSelect !== undefined ? { multiSelect: question.multiSelect } : {}),
    };
  });
}

/** The answers as the model reads them: one line per question. */
export function answersText(answers: readonly QuestionAnswer[]): string {
  const lines = answers.map((answer) => {
    const parts = answer.labels.map((label) => JSON.stringify(label));
    if (answer.text !== undefined) parts.push(`${OTHER_LABEL}: ${JSON.stringify(answer.text)}`);
    return `${JSON.stringify(answer.question)} → ${parts.length > 0 ? parts.join(', ') : '(no answer)'}`;
  });
  return `The user answered:\n${lines.join('\n')}`;
}

export function askUserQuestionTool(logOf: (sessionId: string) => SessionLog | undefined) {
  return defineBuiltinTool({
    name: ASK_USER_QUESTION_TOOL,
    deferral: 'rare',
    summary: 'Ask the user multiple-choice questions when only they can decide.',
    description: `Ask the user 1-${MAX_QUESTIONS} multiple-choice questions when only they can decide (a preference, a choice between approaches, missing requirements). Each question has ${MIN_OPTIONS}-${MAX_OPTIONS} options; the user may always answer "${OTHER_LABEL}" with their own text instead, so do not list "${OTHER_LABEL}". Only the main agent can ask; where nobody can answer it fails at once: then decide yourself and say what you assumed.`,
    arguments: argumentsSchema,
    timeoutMs: ANSWER_WAIT_MS,
    async execute(args, execution) {
      const questions = checkQuestions(args.questions);
      const log = logOf(execution.agentId);
      const { signal, callId } = execution;
      let answered = false;
      const settle = (event: QuestionAnswerEvent) => {
        if (answered) return;
        answered = true;
        log?.append('question/answer', event);
      };
      // Synchronously on abort: the pair is complete before the turn goes on to end.
      const onAbort = () =>
        settle({ callId, outcome: 'cancelled', reason: errorMessage(signal.reason) });
      log?.append('question/ask', { callId, questions });
      if (signal.aborted) {
        onAbort();
        throw signal.reason;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      execution.context.emit(agentAsksUser, {
        agentId: execution.agentId,
        kind: 'question',
        message: questions.map((question) => question.question).join(' / '),
      });
      try {
        const reply = await execution.context
          .get(userQuestionsKey)
          .ask(
            { intent: 'questions', questions },
            { sessionId: execution.agentId, signal, toolCallId: callId },
          );
        if (reply.intent !== 'questions') {
          throw new LoomError('INTERNAL', `the answerer replied to a ${reply.intent} instead`);
        }
        settle({ callId, outcome: 'answered', answers: reply.answers });
        return answersText(reply.answers);
      } catch (error) {
        if (signal.aborted) onAbort();
        else
          settle({
            callId,
            outcome: 'refused',
            ...(error instanceof LoomError ? { code: error.code } : {}),
            message: errorMessage(error),
          });
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  });
}

/** Offers `ask_user_question` to every agent; the service refuses any but a root caller. */
export function installQuestionTool(runtime: AgentRuntime): Disposer {
  const tools: ToolDefinition[] = [askUserQuestionTool((id) => runtime.find(id)?.log)];
  return runtime.offerTools(tools);
}
