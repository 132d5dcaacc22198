/**
 * Folding of long blocks (tool results, diffs, shell output): the first lines, then one dim line
 * saying how many more there are and that Ctrl+O shows them (the transcript view). Draws only.
 */
import { Text } from 'ink';

/** How many lines of a tool's result the chat shows before folding. */
export const RESULT_PREVIEW_LINES = 3;
/** How many lines of an edit's diff the chat shows before folding. */
export const DIFF_PREVIEW_LINES = 12;
/** How many lines of a shell command's output the chat shows before folding. */
export const SHELL_PREVIEW_LINES = 8;

export interface Folded<Line> {
  shown: Line[];
  /** How many lines were left out (0 when expanded or short enough). */
  hidden: number;
}

export function foldLines<Line>(
  lines: readonly Line[],
  limit: number,
  expanded: boolean,
): Folded<Line> {
  if (expanded || lines.length <= limit) return { shown: [...lines], hidden: 0 };
  return { shown: lines.slice(0, limit), hidden: lines.length - limit };
}

export function FoldHint({ hidden, indent = '' }: { hidden: number; indent?: string }) {
  if (hidden <= 0) return null;
  return (
    <Text
      dimColor
    >{`${indent}… ${hidden} more ${hidden === 1 ? 'line' : 'lines'}, ctrl+o to expand`}</Text>
  );
}

/** A text's lines without the trailing empty ones. */
export function textLines(text: string): string[] {
  return text.replace(/\s+$/, '').split(/\r?\n/);
}
