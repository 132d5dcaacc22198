/**
 * The terminal answerer of `loom run` on a TTY: each question as a select (or multiselect) with
 * an "Other" choice that asks for free text, a plan review as approve / reject with feedback.
 * The prompt library is imported only when something is asked, so starting a run never loads
 * it. Ctrl-C (or Esc) in a prompt is the run's Ctrl-C: it goes to `interrupt` and the wait ends
 * when the turn's signal aborts. It writes only to the given output, never to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { OTHER_LABEL } from './questions-contract.js';
import type {
  AskOptions,
  Question,
  QuestionAnswer,
  UserAnswerer,
  UserReply,
  UserRequest,
} from './user-questions.js';

type Prompts = typeof import('@clack/prompts');

export interface TerminalStreams {
  input: Readable;
  output: Writable;
}

/** Options are chosen by index; this one is "Other", which no option can be. */
const OTHER_VALUE = -1;

type Settle = <T>(value: T) => Exclude<T, symbol>;

class PromptCancelled extends Error {}

export function terminalAnswerer(
  streams: TerminalStreams,
  /** What Ctrl-C does in the rest of the run, such as `process.kill(process.pid, 'SIGINT')`. */
  interrupt: () => void,
): UserAnswerer {
  let prompts: Promise<Prompts> | undefined;
  /** One prompt at a time on one terminal. */
  let queue: Promise<unknown> = Promise.resolve();
  return {
    answer(request, options) {
      const turn = queue.then(async () => {
        if (options.signal?.aborted) throw options.signal.reason;
        prompts ??= import('@clack/prompts');
        try {
          return await ask(await prompts, streams, request, options);
        } catch (error) {
          if (!(error instanceof PromptCancelled)) throw error;
          const { signal } = options;
          if (signal?.aborted) throw signal.reason;
          interrupt();
          if (!signal) throw new Error('the user cancelled the question');
          // The run's Ctrl-C handling cancels the turn (at once or later); its signal ends this wait.
          if (signal.aborted) throw signal.reason;
          return new Promise<never>((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          );
        }
      });
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

async function ask(
  prompts: Prompts,
  streams: TerminalStreams,
  request: UserRequest,
  options: AskOptions,
): Promise<UserReply> {
  const common = {
    input: streams.input,
    output: streams.output,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const settled: Settle = (value) => {
    if (prompts.isCancel(value)) throw new PromptCancelled();
    return value as Exclude<typeof value, symbol>;
  };
  if (request.intent === 'plan-review') {
    prompts.note(request.plan, 'Plan', { output: streams.output });
    const verdict = settled(
      await prompts.select<'approve' | 'reject'>({
        ...common,
        message: 'Approve this plan?',
        options: [
          { value: 'approve', label: 'Approve', hint: 'leave plan mode and carry it out' },
          { value: 'reject', label: 'Reject', hint: 'keep planning, with your feedback' },
        ],
      }),
    );
    if (verdict === 'approve') return { intent: 'plan-review', approved: true };
    const feedback = settled(
      await prompts.text({ ...common, message: 'What should change in the plan?' }),
    ).trim();
    return {
      intent: 'plan-review',
      approved: false,
      ...(feedback.length > 0 ? { feedback } : {}),
    };
  }
  const answers: QuestionAnswer[] = [];
  for (const question of request.questions) {
    answers.push(await askOne(prompts, common, question, settled));
  }
  return { intent: 'questions', answers };
}

async function askOne(
  prompts: Prompts,
  common: { input: Readable; output: Writable; signal?: AbortSignal },
  question: Question,
  settled: Settle,
): Promise<QuestionAnswer> {
  const message = question.header ? `${question.header}: ${question.question}` : question.question;
  const choices: { value: number; label: string; hint?: string }[] = [
    ...question.options.map((option, index) => ({
      value: index,
      label: option.label,
      ...(option.description ? { hint: option.description } : {}),
    })),
    { value: OTHER_VALUE, label: OTHER_LABEL, hint: 'type your own answer' },
  ];
  const chosen = question.multiSelect
    ? settled(await prompts.multiselect({ ...common, message, options: choices, required: true }))
    : [settled(await prompts.select({ ...common, message, options: choices }))];
  const labels = chosen.flatMap((index) => question.options[index]?.label ?? []);
  if (!chosen.includes(OTHER_VALUE)) return { question: question.question, labels };
  const text = settled(
    await prompts.text({
      ...common,
      message: `${OTHER_LABEL}: ${question.question}`,
      validate: (value) => (value?.trim() ? undefined : 'type an answer'),
    }),
  ).trim();
  return { question: question.question, labels, text };
}
