/**
 * The interactive terminal's first frame, drawn as plain text before ink, React and the runtime
 * have loaded: the prompt box with its placeholder and the footer's lines, laid out as ink draws
 * them at the terminal's width, so a person sees where to type at once. The caller has put the
 * terminal in raw mode first, so keys typed now wait unechoed in stdin until ink reads them.
 * ink's first frame replaces these lines (`takeOver`). Never imports ink or React.
 */
import { DEFAULT_MODE_LABEL, IDLE_KEYS, IDLE_PLACEHOLDER, shortWorkspace } from './chrome-text.js';

/** Below this width the box cannot hold its prompt; ink alone draws what it can. */
const MINIMUM_COLUMNS = 20;

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const ERASE_LINE = '\u001b[2K';
const UP_AND_ERASE_LINE = `\u001b[1A${ERASE_LINE}`;

export interface FirstFrameOptions {
  columns: number;
  /** The workspace folder, shown in the footer (ink adds the model and the counts). */
  workspace: string;
  /** Colours as ink draws them; off for NO_COLOR, FORCE_COLOR=0 and a dumb terminal. */
  colors: boolean;
  /** The home folder a workspace under it is shortened against (`~`); default: the user's. */
  home?: string;
}

export interface FirstFrame {
  /**
   * The sequence that erases the drawn lines, for the write right before ink's first frame (the
   * cursor is then where the first line started); empty once erased. From here on, writes by
   * others are left alone.
   */
  takeOver(): string;
  /** Erases the drawn lines and shows the cursor again, unless ink took them over or they are gone. */
  clear(): void;
}

/** Whether ink's colours are on for this environment (the rules of supports-color that apply). */
export function colorsEnabled(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  return env.TERM !== 'dumb';
}

/** The lines of the first frame, each at most `columns` wide; none below the minimum width. */
export function firstFrameLines(options: FirstFrameOptions): string[] {
  const { columns } = options;
  if (columns < MINIMUM_COLUMNS) return [];
  const paint = (code: string, reset: string) => (text: string) =>
    options.colors && text.length > 0 ? `\u001b[${code}m${text}\u001b[${reset}m` : text;
  const cyan = paint('36', '39');
  const gray = paint('90', '39');
  const dim = paint('2', '22');
  const inverse = (text: string) => (options.colors ? `\u001b[7m${text}\u001b[27m` : text);
  const inner = columns - 4;
  // `> `, the cursor (an inverse space) and the placeholder are one text, wrapped as ink wraps it.
  const rows = wrapWords(`>  ${IDLE_PLACEHOLDER}`, inner);
  const content = rows.map((row, index) => {
    const padding = ' '.repeat(inner - [...row].length);
    const drawn = index === 0 ? `${cyan('> ')}${inverse(' ')}${dim(row.slice(3))}` : dim(row);
    return `${cyan('│')} ${drawn}${padding} ${cyan('│')}`;
  });
  const rule = '─'.repeat(columns - 2);
  const modeLine = truncateEnd(`${DEFAULT_MODE_LABEL} · ${IDLE_KEYS}`, columns);
  const label = [...DEFAULT_MODE_LABEL].length;
  return [
    cyan(`╭${rule}╮`),
    ...content,
    cyan(`╰${rule}╯`),
    dim(truncateMiddle(shortWorkspace(options.workspace, options.home), columns)),
    `${gray([...modeLine].slice(0, label).join(''))}${dim([...modeLine].slice(label).join(''))}`,
  ];
}

/**
 * Draws the first frame on `output` at the cursor's line. Until ink takes over, a write by
 * anyone else to `output` or `errors` first erases the frame, so nothing lands inside it.
 */
export function drawFirstFrame(
  output: NodeJS.WriteStream,
  errors: NodeJS.WriteStream,
  options: FirstFrameOptions,
): FirstFrame {
  const lines = firstFrameLines(options);
  if (lines.length === 0) return { takeOver: () => '', clear: () => {} };
  const widths = lines.map((line) => [...line.replace(ESCAPES, '')].length);
  const streams = [output, errors];
  const writes = streams.map((stream) => stream.write);
  let drawn = true;
  const release = () => {
    streams.forEach((stream, index) => {
      stream.write = writes[index] as typeof stream.write;
    });
  };
  const erase = (): string => {
    if (!drawn) return '';
    drawn = false;
    release();
    // A terminal narrowed since reflows each line onto as many rows as it now needs.
    const columns = output.columns || options.columns;
    const rows = widths.reduce((sum, width) => sum + Math.max(1, Math.ceil(width / columns)), 0);
    return `\r${ERASE_LINE}${UP_AND_ERASE_LINE.repeat(rows)}`;
  };
  // The cursor's line may hold keys the terminal echoed before raw mode: the frame replaces them.
  output.write(`\r${ERASE_LINE}${HIDE_CURSOR}${lines.join('\n')}\n`);
  for (const stream of streams) {
    const original = stream.write;
    stream.write = function writeAfterErasing(this: NodeJS.WriteStream, ...rest: never[]) {
      const sequence = erase();
      if (sequence !== '') output.write(sequence + SHOW_CURSOR);
      return (original as (...values: never[]) => boolean).apply(this, rest);
    } as typeof stream.write;
  }
  return {
    takeOver: erase,
    clear() {
      const sequence = erase();
      if (sequence !== '') output.write(sequence + SHOW_CURSOR);
    },
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matches terminal escape sequences
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * Words wrapped into rows of at most `width` characters the way ink wraps a text (wrap-ansi
 * with `trim: false, hard: true`): a space that still fits stays at the row's end, a word that
 * does not fit starts the next row, and a word wider than a row is broken across rows.
 */
export function wrapWords(text: string, width: number): string[] {
  const rows = [''];
  const lengthOf = (value: string) => [...value].length;
  const lastLength = () => lengthOf(rows[rows.length - 1] ?? '');
  const append = (value: string) => {
    rows[rows.length - 1] = `${rows[rows.length - 1] ?? ''}${value}`;
  };
  text.split(' ').forEach((word, index) => {
    let used = lastLength();
    if (index > 0) {
      if (used >= width) {
        rows.push('');
        used = 0;
      }
      append(' ');
      used++;
    }
    const length = lengthOf(word);
    if (length > width) {
      const breaksOnThisRow = 1 + Math.floor((length - (width - used) - 1) / width);
      const breaksOnTheNext = Math.floor((length - 1) / width);
      if (breaksOnTheNext < breaksOnThisRow) rows.push('');
      let visible = lastLength();
      [...word].forEach((character, position) => {
        if (visible + 1 <= width) append(character);
        else {
          rows.push(character);
          visible = 0;
        }
        visible++;
        if (visible === width && position < length - 1) {
          rows.push('');
          visible = 0;
        }
      });
      return;
    }
    if (used + length > width && used > 0 && length > 0) rows.push('');
    append(word);
  });
  return rows;
}

/** At most `columns` characters: the middle gives way to `…`, as ink's `truncate-middle`. */
function truncateMiddle(text: string, columns: number): string {
  const characters = [...text];
  if (characters.length <= columns) return text;
  const half = Math.floor(columns / 2);
  return `${characters.slice(0, half).join('')}…${characters.slice(characters.length - (columns - half) + 1).join('')}`;
}

/** At most `columns` characters: the end gives way to `…`, as ink's `truncate-end`. */
function truncateEnd(text: string, columns: number): string {
  const characters = [...text];
  if (characters.length <= columns) return text;
  return `${characters.slice(0, columns - 1).join('')}…`;
}
