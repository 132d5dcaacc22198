/**
 * Waiting for an ink-testing-library frame: checks the latest frame after each turn of the event
 * loop until it matches, so a test waits on what is drawn, never on time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The escape sequences of colours and styles, removed to read a frame as plain text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matches terminal escape sequences
const STYLES = /\u001b\[[0-9;]*m/g;

export function plain(frame: string | undefined): string {
  return (frame ?? '').replace(STYLES, '');
}

export async function frameMatching(
  lastFrame: () => string | undefined,
  check: (plainFrame: string) => boolean,
  turns = 2000,
): Promise<string> {
  for (let turn = 0; turn < turns; turn++) {
    if (check(plain(lastFrame()))) return lastFrame() ?? '';
    await nextTurn();
  }
  throw new Error(`no frame matched; the last one was:\n${plain(lastFrame())}`);
}
