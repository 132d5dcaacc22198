/**
 * What a model needs to know to deliver a structured answer: the capture tool's name, and how
 * its arguments carry the answer. An answer that is not an object every route takes as a tool's
 * parameters travels in a `value` argument, and the tool's description then opens with
 * `WRAPPED_ANSWER_WORDS`; the capture (subagent/structured-output) writes those words and the
 * scripted model reads them, so its `output` is always the answer itself. Constants only.
 */

export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

/** The argument that carries a wrapped answer. */
export const ANSWER_ARGUMENT = 'value';

/** How the capture tool's description opens exactly when the answer travels in `value`. */
export const WRAPPED_ANSWER_WORDS = 'Delivers your final answer in the `value` argument';
