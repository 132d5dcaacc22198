/**
 * Assistant text as Markdown for a terminal, through `marked` with `marked-terminal` (headings,
 * lists, tables, code blocks highlighted). Rendering is pure: the same text and width give the
 * same lines. While text streams, `tailRows` keeps only its last rows on screen, so the live
 * region never grows taller than the terminal (the full text is drawn once it is finished).
 */
import { Box, Text } from 'ink';
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** One renderer per width (the width shapes rules and tables); widths change only on resize. */
const renderers = new Map<number, Marked>();

export function renderMarkdown(text: string, width: number): string {
  let renderer = renderers.get(width);
  if (!renderer) {
    renderer = new Marked(markedTerminal({ width, reflowText: false, tab: 2 }));
    renderers.set(width, renderer);
  }
  const rendered = renderer.parse(text, { async: false }) as string;
  return rendered.replace(/\n+$/, '');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matches terminal escape sequences
const ESCAPES = /\u001b\[[0-9;]*[A-Za-z]/g;

/** How many terminal rows a line takes at `width` columns (one per code point, at least one). */
export function rowsOf(line: string, width: number): number {
  const length = [...line.replace(ESCAPES, '')].length;
  return Math.max(1, Math.ceil(length / Math.max(1, width)));
}

/** The last lines of `lines` that fit in `rows` rows, and how many lines were left out. */
export function tailThatFits(
  lines: readonly string[],
  rows: number,
  width: number,
): { shown: string[]; hidden: number } {
  let used = 0;
  let start = lines.length;
  while (start > 0) {
    const next = used + rowsOf(lines[start - 1] ?? '', width);
    if (next > rows) break;
    used = next;
    start--;
  }
  return { shown: lines.slice(start), hidden: start };
}

export interface MarkdownProps {
  text: string;
  width?: number;
  /** Show only the last rows that fit in this many (minus one for the note above them). */
  tailRows?: number;
}

export function Markdown({ text, width = 80, tailRows }: MarkdownProps) {
  const rendered = renderMarkdown(text, width);
  if (tailRows === undefined) return <Text>{rendered}</Text>;
  const { shown, hidden } = tailThatFits(rendered.split('\n'), Math.max(1, tailRows - 1), width);
  if (hidden === 0) return <Text>{rendered}</Text>;
  return (
    <Box flexDirection="column">
      <Text dimColor>{`↑ ${hidden} more ${hidden === 1 ? 'line' : 'lines'} above`}</Text>
      <Text>{shown.join('\n')}</Text>
    </Box>
  );
}
