/**
 * The live region's transcript items (streaming text and reasoning, running tools), kept within
 * `rows` rows so the live region never outgrows the terminal (ink would then clear and repaint
 * the whole screen on every frame): many running tools (counted with the inner calls shown under
 * a running program) fold into one line, and streaming text shows its last rows. Finished items
 * are drawn elsewhere (the static region). Draws only.
 */
import { Box, Text } from 'ink';
import type { TranscriptItem } from '../contract.js';
import { liveToolRows } from './tool-line.js';
import { TranscriptItemView } from './transcript-item.js';

export interface LiveItemsProps {
  items: readonly TranscriptItem[];
  width: number;
  /** The rows the live items may take. */
  rows: number;
}

export function LiveItems({ items, width, rows }: LiveItemsProps) {
  const room = Math.max(3, rows);
  const toolRoom = Math.max(1, Math.floor(room / 3));
  const tools = items.filter((item) => item.kind === 'tool');
  // A running program's inner calls take rows of their own; the first tool always shows.
  const shownTools = new Set<TranscriptItem>();
  let toolRows = 0;
  for (const item of tools) {
    const rows = liveToolRows(item.tool);
    if (shownTools.size > 0 && toolRows + rows > toolRoom) break;
    shownTools.add(item);
    toolRows += rows;
  }
  const hiddenTools = tools.length - shownTools.size;
  const others = items.filter((item) => item.kind !== 'tool' && item.kind !== 'assistant');
  // One row goes to the blank line above the streaming text.
  const textRows = Math.max(3, room - 1 - toolRows - others.length - (hiddenTools > 0 ? 1 : 0));
  return (
    <Box flexDirection="column">
      {items.map((item) =>
        item.kind === 'tool' && !shownTools.has(item) ? null : (
          <TranscriptItemView
            key={item.id}
            item={item}
            width={width}
            {...(item.kind === 'assistant' ? { maxRows: textRows } : {})}
          />
        ),
      )}
      {hiddenTools > 0 ? (
        <Text color="yellow">{`… ${hiddenTools} more running ${hiddenTools === 1 ? 'tool' : 'tools'}`}</Text>
      ) : null}
    </Box>
  );
}
