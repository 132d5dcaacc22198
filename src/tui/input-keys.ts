/**
 * One chunk read from the terminal, as the keys it holds. ink hands a run of characters read at
 * once (typing ahead while busy, `tmux send-keys "text" Enter`) to a handler as one string; here
 * each control character of it is a key of its own, so the Enter at its end sends, and the text
 * between them is typed. Only a bracketed paste is literal text: the input hook passes its chunks
 * through unsplit. Pure; it never reads the terminal.
 */
import type { Key } from 'ink';

export interface KeyPress {
  input: string;
  key: Key;
}

/** What a terminal sends around a bracketed paste (ink strips the leading escape). */
export const PASTE_START = '[200~';
export const PASTE_END = '[201~';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** A control character or a run of text: what one key of a chunk is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: splitting at control characters is the point
const PIECES = /[\u0000-\u001f\u007f]|[^\u0000-\u001f\u007f]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const HAS_CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The keys of a chunk ink read as one: a single key (an escape sequence, one character) comes
 * back as ink parsed it; a longer chunk is split at each control character, which becomes the
 * key ink gives it alone (`\r` Enter, `\n` a line feed, `\t` Tab, DEL, Ctrl+letter).
 */
export function splitKeys(input: string, key: Key): KeyPress[] {
  if (input.length <= 1 || !HAS_CONTROL.test(input) || key.meta || key.escape) {
    return [{ input, key }];
  }
  return (input.match(PIECES) ?? []).map(keyOf);
}

function keyOf(piece: string): KeyPress {
  switch (piece) {
    case '\r':
      return { input: '', key: { ...NO_KEY, return: true } };
    case '\n':
      return { input: '\n', key: NO_KEY };
    case '\t':
      return { input: '', key: { ...NO_KEY, tab: true } };
    case '\x7f':
      return { input: '', key: { ...NO_KEY, delete: true } };
    case '\b':
      return { input: '', key: { ...NO_KEY, backspace: true } };
    default:
      break;
  }
  const code = piece.charCodeAt(0);
  if (piece.length === 1 && code >= 1 && code <= 26) {
    return { input: String.fromCharCode(code + 96), key: { ...NO_KEY, ctrl: true } };
  }
  if (piece.length === 1 && code < 0x20) return { input: '', key: NO_KEY };
  return { input: piece, key: { ...NO_KEY, shift: /^[A-Z]$/.test(piece) } };
}
