/**
 * A server's elicitation (`elicitation/create`) put to the human through the
 * user-questions service, so it is answered wherever the session's questions are: a terminal
 * prompt, an ACP client's form (or its permission fallback), or `--answers FILE`. Each field of
 * the requested schema (a flat object of string, number, integer, boolean, enum and enum-array
 * fields) becomes one question headed by the field's name (the key an answers file may use);
 * the answers become the form's content, checked against the field. Nobody to ask (`NO_USER`),
 * a subagent caller, a schema Loom cannot show or an answer that does not fit is `decline`; a
 * cancelled call is `cancel`. A URL elicitation (mode `url`) is one question headed `URL`
 * showing the server's message and the URL: `done` (the human opened it and finished) is
 * `accept`, `decline` or nobody to ask is `decline`; Loom never opens a browser. Logged as
 * `question/ask` and `question/answer`, paired by the MCP tool call's id.
 */
import { errorMessage, LoomError } from '../base/errors.js';
import { agentAsksUser } from '../core/agent-hooks.js';
import { agentRuntimeKey } from '../core/runtime.js';
import type { QuestionAnswerEvent } from '../interaction/questions-contract.js';
import {
  type Question,
  type QuestionAnswer,
  type QuestionOption,
  userQuestionsKey,
} from '../interaction/user-questions.js';
import type { McpCaller } from './contract.js';

/** What a form elicitation asks (the SDK's `ElicitRequestFormParams`, as far as Loom reads it). */
export interface FormElicitation {
  message: string;
  requestedSchema: { type?: string; properties?: Record<string, unknown>; required?: unknown };
}

/** A URL elicitation (the SDK's `ElicitRequestURLParams`, as far as Loom reads it). */
export interface UrlElicitation {
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
}

/** The header of a URL elicitation's question and its two choices. */
export const URL_HEADER = 'URL';
export const URL_DONE = 'done';
export const URL_DECLINE = 'decline';

export type ElicitationReply =
  /** `content` for a form; none for a URL (the human finished at the URL). */
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** The choice of an optional field that leaves it out of the content. */
export const LEAVE_EMPTY = '(leave empty)';

interface Choice {
  value: string;
  label: string;
}

export interface FormField {
  key: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  required: boolean;
  question: string;
  choices?: Choice[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

type Property = Record<string, unknown>;

const FORMAT_HINTS: Record<string, string> = {
  email: 'an email address',
  uri: 'a URI',
  date: 'a date, YYYY-MM-DD',
  'date-time': 'a date and time, ISO 8601',
};

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The choices of an enum property: `enum` (with legacy `enumNames`), or `oneOf`/`anyOf` consts. */
function choicesOf(property: Property): Choice[] | undefined {
  if (Array.isArray(property.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    return property.enum.map((value, index) => ({
      value: String(value),
      label: typeof names[index] === 'string' ? names[index] : String(value),
    }));
  }
  const titled = Array.isArray(property.oneOf)
    ? property.oneOf
    : Array.isArray(property.anyOf)
      ? property.anyOf
      : undefined;
  if (!titled) return undefined;
  const choices: Choice[] = [];
  for (const item of titled) {
    const entry = item as Property;
    if (typeof entry?.const !== 'string') return undefined;
    choices.push({
      value: entry.const,
      label: typeof entry.title === 'string' ? entry.title : entry.const,
    });
  }
  return choices;
}

/** One field of the form, or why Loom cannot show it. */
function fieldOf(key: string, raw: unknown, required: boolean): FormField | string {
  if (typeof raw !== 'object' || raw === null) return `field ${key} is not a schema`;
  const property = raw as Property;
  const title = typeof property.title === 'string' ? property.title : key;
  const description = typeof property.description === 'string' ? property.description : '';
  const base = { key, required, question: description ? `${title}: ${description}` : title };
  switch (property.type) {
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'number':
    case 'integer': {
      const field: FormField = { ...base, kind: property.type };
      const minimum = numberOr(property.minimum);
      const maximum = numberOr(property.maximum);
      if (minimum !== undefined) field.minimum = minimum;
      if (maximum !== undefined) field.maximum = maximum;
      return field;
    }
    case 'string': {
      const choices = choicesOf(property);
      if (choices) return { ...base, kind: 'choice', choices };
      const field: FormField = { ...base, kind: 'string' };
      if (typeof property.format === 'string') field.format = property.format;
      const minLength = numberOr(property.minLength);
      const maxLength = numberOr(property.maxLength);
      if (minLength !== undefined) field.minLength = minLength;
      if (maxLength !== undefined) field.maxLength = maxLength;
      return field;
    }
    case 'array': {
      const choices = choicesOf((property.items ?? {}) as Property);
      if (!choices) return `field ${key} is a list of something other than choices`;
      const field: FormField = { ...base, kind: 'choices', choices };
      const minItems = numberOr(property.minItems);
      const maxItems = numberOr(property.maxItems);
      if (minItems !== undefined) field.minItems = minItems;
      if (maxItems !== undefined) field.maxItems = maxItems;
      return field;
    }
    default:
      return `field ${key} has type ${JSON.stringify(property.type)}, which a form cannot ask`;
  }
}

function hintOf(field: FormField): string {
  const hints: string[] = [];
  if (field.kind === 'number' || field.kind === 'integer') {
    hints.push(field.kind === 'integer' ? 'a whole number' : 'a number');
    if (field.minimum !== undefined || field.maximum !== undefined) {
      hints.push(`${field.minimum ?? '…'} to ${field.maximum ?? '…'}`);
    }
  }
  if (field.format !== undefined && FORMAT_HINTS[field.format]) {
    hints.push(FORMAT_HINTS[field.format] as string);
  }
  return hints.length > 0 ? ` (${hints.join(', ')})` : '';
}

function optionsOf(field: FormField, defaultValue: unknown): QuestionOption[] {
  const options: QuestionOption[] =
    field.kind === 'boolean'
      ? [{ label: 'yes' }, { label: 'no' }]
      : field.choices
        ? field.choices.map((choice) =>
            choice.label === choice.value
              ? { label: choice.label }
              : { label: choice.label, description: choice.value },
          )
        : defaultValue !== undefined && typeof defaultValue !== 'object'
          ? [{ label: String(defaultValue), description: 'the default' }]
          : [];
  if (!field.required) {
    options.push({ label: LEAVE_EMPTY, description: 'leave this field out' });
  }
  return options;
}

export interface Form {
  fields: FormField[];
  questions: Question[];
}

/**
 * The questions of a form: one per field, headed by its name, the first one saying which server
 * asks and its message. A string is why the schema cannot be asked.
 */
export function elicitationForm(server: string, request: FormElicitation): Form | string {
  const schema = request.requestedSchema;
  const properties = schema.properties ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields: FormField[] = [];
  const questions: Question[] = [];
  const texts = new Set<string>();
  for (const [key, raw] of Object.entries(properties)) {
    const field = fieldOf(key, raw, required.has(key));
    if (typeof field === 'string') return field;
    let text = `${field.question}${hintOf(field)}`;
    if (questions.length === 0) text = `MCP server ${server} asks: ${request.message}\n${text}`;
    if (texts.has(text)) text = `${text} (${key})`;
    texts.add(text);
    field.question = text;
    fields.push(field);
    questions.push({
      question: text,
      header: key,
      options: optionsOf(field, (raw as Property).default),
      ...(field.kind === 'choices' ? { multiSelect: true } : {}),
    });
  }
  if (fields.length === 0) return 'the form has no fields';
  return { fields, questions };
}

function fits(field: FormField, text: string): string | undefined {
  if (field.minLength !== undefined && text.length < field.minLength) {
    return `at least ${field.minLength} characters`;
  }
  if (field.maxLength !== undefined && text.length > field.maxLength) {
    return `at most ${field.maxLength} characters`;
  }
  switch (field.format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(text) ? undefined : 'an email address';
    case 'uri':
      return URL.canParse(text) ? undefined : 'a URI';
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))
        ? undefined
        : 'a date (YYYY-MM-DD)';
    case 'date-time':
      return Number.isNaN(Date.parse(text)) ? 'a date and time' : undefined;
    default:
      return undefined;
  }
}

function choiceValue(field: FormField, given: string): string | undefined {
  const wanted = given.trim().toLowerCase();
  return field.choices?.find(
    (choice) => choice.label.toLowerCase() === wanted || choice.value.toLowerCase() === wanted,
  )?.value;
}

/** A field's value from its answer, `undefined` to leave it out, or a problem. */
function fieldValue(
  field: FormField,
  answer: QuestionAnswer | undefined,
): { value?: string | number | boolean | string[] } | { problem: string } {
  const given = [...(answer?.labels ?? []), ...(answer?.text !== undefined ? [answer.text] : [])]
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const empty = given.length === 0 || given.every((item) => item === LEAVE_EMPTY);
  if (empty) return field.required ? { problem: `${field.key} is required` } : {};
  const wrong = (what: string) => ({
    problem: `${field.key} must be ${what} (got ${JSON.stringify(given.join(', '))})`,
  });
  if (field.kind === 'choices') {
    const values: string[] = [];
    for (const item of given.flatMap((part) => part.split(','))) {
      if (item.trim() === '' || item === LEAVE_EMPTY) continue;
      const value = choiceValue(field, item);
      if (value === undefined)
        return wrong(`among ${field.choices?.map((c) => c.label).join(', ')}`);
      if (!values.includes(value)) values.push(value);
    }
    if (field.minItems !== undefined && values.length < field.minItems) {
      return wrong(`at least ${field.minItems} choices`);
    }
    if (field.maxItems !== undefined && values.length > field.maxItems) {
      return wrong(`at most ${field.maxItems} choices`);
    }
    return { value: values };
  }
  if (given.length > 1) return wrong('one answer');
  const text = given[0] as string;
  switch (field.kind) {
    case 'boolean': {
      const word = text.toLowerCase();
      if (['yes', 'y', 'true'].includes(word)) return { value: true };
      if (['no', 'n', 'false'].includes(word)) return { value: false };
      return wrong('yes or no');
    }
    case 'number':
    case 'integer': {
      const value = Number(text);
      if (text === '' || !Number.isFinite(value)) return wrong('a number');
      if (field.kind === 'integer' && !Number.isInteger(value)) return wrong('a whole number');
      if (field.minimum !== undefined && value < field.minimum) {
        return wrong(`at least ${field.minimum}`);
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return wrong(`at most ${field.maximum}`);
      }
      return { value };
    }
    case 'choice': {
      const value = choiceValue(field, text);
      return value === undefined
        ? wrong(`one of ${field.choices?.map((c) => c.label).join(', ')}`)
        : { value };
    }
    default: {
      const problem = fits(field, text);
      return problem === undefined ? { value: text } : wrong(problem);
    }
  }
}

/** The form's content from the answers, or the first field whose answer does not fit. */
export function elicitationContent(
  form: Form,
  answers: readonly QuestionAnswer[],
): { content: Record<string, string | number | boolean | string[]> } | { problem: string } {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of form.fields) {
    const outcome = fieldValue(
      field,
      answers.find((answer) => answer.question === field.question),
    );
    if ('problem' in outcome) return outcome;
    if (outcome.value !== undefined) content[field.key] = outcome.value;
  }
  return { content };
}

let uncalled = 0;

/** The one question of a URL elicitation. */
export function urlQuestion(server: string, request: UrlElicitation): Question {
  return {
    question: `MCP server ${server} asks you to open this URL in your browser: ${request.url}\n${request.message}\nThen choose ${URL_DONE} when you have finished there, or ${URL_DECLINE}.`,
    header: URL_HEADER,
    options: [
      { label: URL_DONE, description: 'I opened the URL and finished there' },
      { label: URL_DECLINE, description: 'I do not open it' },
    ],
  };
}

/** What the answers say: a form's content, a URL's `done`, or `decline`. */
type Asked =
  | { questions: Question[]; reply(answers: readonly QuestionAnswer[]): ElicitationReply }
  | string;

function askedFor(server: string, request: FormElicitation | UrlElicitation): Asked {
  if ('mode' in request && request.mode === 'url') {
    const question = urlQuestion(server, request);
    return {
      questions: [question],
      reply: (answers) => {
        const answer = answers.find((item) => item.question === question.question);
        const given = [...(answer?.labels ?? []), answer?.text ?? ''].map((item) =>
          item.trim().toLowerCase(),
        );
        return given.includes(URL_DONE) ? { action: 'accept' } : { action: 'decline' };
      },
    };
  }
  const form = elicitationForm(server, request as FormElicitation);
  if (typeof form === 'string') return form;
  return {
    questions: form.questions,
    reply: (answers) => {
      const outcome = elicitationContent(form, answers);
      return 'problem' in outcome
        ? { action: 'decline' }
        : { action: 'accept', content: outcome.content };
    },
  };
}

/**
 * Puts `request` to the human for `caller` (none: declined at once) and answers the server.
 * Never throws.
 */
export async function answerElicitation(
  server: string,
  caller: McpCaller | undefined,
  request: FormElicitation | UrlElicitation,
  signal: AbortSignal,
): Promise<ElicitationReply> {
  if (!caller) return { action: 'decline' };
  const form = askedFor(server, request);
  if (typeof form === 'string') return { action: 'decline' };
  const questions = caller.context.find(userQuestionsKey);
  if (!questions) return { action: 'decline' };
  const log = caller.context.find(agentRuntimeKey)?.find(caller.agentId)?.log;
  uncalled += 1;
  const callId = caller.call?.callId ?? `mcp-elicitation-${server}-${uncalled}`;
  const append = (event: QuestionAnswerEvent) => {
    if (log && !log.closed) log.append('question/answer', event);
  };
  const waiting = caller.call?.signal ? AbortSignal.any([signal, caller.call.signal]) : signal;
  if (log && !log.closed) log.append('question/ask', { callId, questions: form.questions });
  caller.context.emit(agentAsksUser, {
    agentId: caller.agentId,
    kind: 'question',
    message: `MCP server ${server}: ${request.message}`,
  });
  try {
    const reply = await questions.ask(
      { intent: 'questions', questions: form.questions },
      { sessionId: caller.agentId, signal: waiting, toolCallId: callId },
    );
    if (reply.intent !== 'questions') throw new Error(`the answerer replied to a ${reply.intent}`);
    append({ callId, outcome: 'answered', answers: reply.answers });
    return form.reply(reply.answers);
  } catch (error) {
    if (waiting.aborted) {
      append({ callId, outcome: 'cancelled', reason: errorMessage(waiting.reason) });
      return { action: 'cancel' };
    }
    append({
      callId,
      outcome: 'refused',
      ...(error instanceof LoomError ? { code: error.code } : {}),
      message: errorMessage(error),
    });
    return { action: 'decline' };
  }
}
