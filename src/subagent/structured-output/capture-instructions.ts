/**
 * What the model is told about structured output: the capture tool's parameters (the schema
 * itself for an object answer, a `value` wrapper otherwise) and description, and the prompt
 * section. Pure data builders; they must never weaken the schema they are given.
 */
import type { JsonSchema } from '../../llm/contract.js';
import { STRUCTURED_OUTPUT_TOOL, WRAPPED_ANSWER_WORDS } from '../../llm/structured-answer.js';
import { answerWrapper, takenAsParameters } from './answer-wrapper.js';

export { STRUCTURED_OUTPUT_TOOL } from '../../llm/structured-answer.js';
export const STRUCTURED_OUTPUT_SECTION = 'structured-output';
export const STRUCTURED_OUTPUT_SECTION_ORDER = 190;

/** How the answer travels in the tool's arguments. */
export interface CaptureShape {
  parameters: JsonSchema;
  /** True when the answer is the `value` field of the arguments, not the arguments themselves. */
  wrapped: boolean;
}

/**
 * `schema` must already be a private, checked copy. An object answer every route takes as a
 * tool's parameters is used as is; any other goes in a `value` argument (see `answer-wrapper.ts`).
 */
export function captureShape(schema: JsonSchema): CaptureShape {
  if (takenAsParameters(schema)) return { parameters: schema, wrapped: false };
  return { parameters: answerWrapper(schema), wrapped: true };
}

export function captureDescription(wrapped: boolean): string {
  const delivers = wrapped ? WRAPPED_ANSWER_WORDS : 'Delivers your final answer as the arguments';
  return (
    `${delivers}, matching the schema exactly. ` +
    'Call it exactly once, when your work is done: it ends your turn.'
  );
}

export function captureInstructions(wrapped: boolean): string {
  const where = wrapped
    ? 'with your answer in its `value` argument'
    : 'with your answer as its arguments';
  return [
    `Your final answer must be given by calling the ${STRUCTURED_OUTPUT_TOOL} tool exactly once, ${where}, matching its parameters schema.`,
    'A plain text reply is not an answer. If the call is rejected as invalid, fix the arguments as the error says and call it again.',
    `Once ${STRUCTURED_OUTPUT_TOOL} succeeds your work is over: call no other tool and write nothing after it.`,
  ].join('\n');
}
