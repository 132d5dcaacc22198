/**
 * The numbered choices of a request widget, the one under the cursor marked `›`; with
 * checkboxes for a multiple choice. Draws only: the widget owns the cursor and what is chosen.
 */
import { Text } from 'ink';

export interface ChoiceRow {
  label: string;
  description?: string;
  /** Shown as `[x]` or `[ ]` when the rows have checkboxes. */
  checked?: boolean;
}

export function ChoiceRows({
  rows,
  cursor,
  checkboxes = false,
}: {
  rows: readonly ChoiceRow[];
  cursor: number;
  checkboxes?: boolean;
}) {
  return (
    <>
      {rows.map((row, position) => {
        const here = position === cursor;
        const box = checkboxes ? (row.checked ? '[x] ' : '[ ] ') : '';
        return (
          <Text key={row.label} color={here ? 'cyan' : undefined}>
            {`${here ? '›' : ' '} ${position + 1}. ${box}${row.label}`}
            {row.description ? <Text dimColor>{` — ${row.description}`}</Text> : null}
          </Text>
        );
      })}
    </>
  );
}

/** The cursor moved one row up or down, wrapping around. */
export function movedCursor(cursor: number, count: number, key: { upArrow: boolean }): number {
  return key.upArrow ? (cursor + count - 1) % count : (cursor + 1) % count;
}

/** The row a digit key names (`1` is the first), if there is one. */
export function rowOfDigit(input: string, count: number): number | undefined {
  if (!/^[1-9]$/.test(input)) return undefined;
  const row = Number(input) - 1;
  return row < count ? row : undefined;
}
