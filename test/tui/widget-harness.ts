/**
 * For component tests of the request widgets: the keys a person presses, waiting for a frame
 * (polled on each setImmediate) or for a freshly drawn widget to read keys, and a recorder for
 * what a widget answers. A widget keeps one key handler for its whole life, so once it reads
 * keys every later key reaches it whatever frame is drawn.
 */

export const KEY = {
  enter: '\r',
  space: ' ',
  up: '\x1b[A',
  down: '\x1b[B',
  backspace: '\x7f',
} as const;

/** Resolves with the frame once it matches; rejects with the last frame if it never does. */
export function frameMatching(
  lastFrame: () => string | undefined,
  pattern: RegExp | string,
  timeoutMs = 5000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const matches = (frame: string) =>
    typeof pattern === 'string' ? frame.includes(pattern) : pattern.test(frame);
  return new Promise((resolve, reject) => {
    const check = () => {
      const frame = lastFrame() ?? '';
      if (matches(frame)) resolve(frame);
      else if (Date.now() > deadline) {
        reject(new Error(`no frame showed ${String(pattern)}; the last one:\n${frame}`));
      } else setImmediate(check);
    };
    setImmediate(check);
  });
}

/** Collects what a widget resolves its request with; `next` waits for the first answer. */
export function answerRecorder<Answer>() {
  const answers: Answer[] = [];
  let settle: (answer: Answer) => void = () => {};
  const next = new Promise<Answer>((resolve) => {
    settle = resolve;
  });
  return {
    answers,
    next,
    resolve(answer: Answer) {
      answers.push(answer);
      settle(answer);
    },
  };
}

interface RenderedWidget {
  lastFrame(): string | undefined;
  stdin: { listenerCount(event: string): number };
}

/**
 * Resolves once the widget's first frame matches and its key handler is attached: ink listens
 * to stdin (`readable`) only once a `useInput` effect turned raw mode on, in the same effect pass
 * that subscribes the handler.
 */
export async function widgetReady(
  view: RenderedWidget,
  pattern: RegExp | string,
  timeoutMs = 5000,
): Promise<string> {
  const frame = await frameMatching(view.lastFrame, pattern, timeoutMs);
  await frameMatching(() => String(view.stdin.listenerCount('readable')), /^[1-9]/, timeoutMs);
  return frame;
}
