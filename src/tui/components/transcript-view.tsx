/**
 * The transcript view (Ctrl+O, Esc returns): the recent transcript with nothing folded (full
 * reasoning, full tool results and diffs), in a window that fits the terminal and scrolls with
 * the arrows and Page Up / Page Down, starting at the end. Draws and scrolls only.
 */
import { Box, type DOMElement, measureElement, Text, useInput } from 'ink';
import { useLayoutEffect, useRef, useState } from 'react';
import type { TranscriptItem } from '../contract.js';
import { useTerminalSize } from '../terminal-size.js';
import { TranscriptItemView } from './transcript-item.js';

/** How many of the latest transcript items the view draws. */
export const RECENT_ITEMS = 200;
/** Rows left for the view's title, the prompt box and the footer. */
const RESERVED_ROWS = 9;

export interface TranscriptViewProps {
  items: readonly TranscriptItem[];
  width: number;
}

export function TranscriptView({ items, width }: TranscriptViewProps) {
  const { rows } = useTerminalSize();
  const room = Math.max(3, rows - RESERVED_ROWS);
  const content = useRef<DOMElement>(null);
  const [contentRows, setContentRows] = useState(room);
  /** Rows scrolled up from the end. */
  const [scrolled, setScrolled] = useState(0);
  useLayoutEffect(() => {
    if (content.current) setContentRows(measureElement(content.current).height);
  });
  const height = Math.min(room, contentRows);
  const furthest = Math.max(0, contentRows - height);
  const offset = Math.min(scrolled, furthest);
  useInput((input, key) => {
    const page = Math.max(1, height - 1);
    let next: number | undefined;
    if (key.upArrow) next = offset + 1;
    else if (key.downArrow) next = offset - 1;
    else if (key.pageUp) next = offset + page;
    else if (key.pageDown) next = offset - page;
    else if (key.home || input === 'g') next = furthest;
    else if (key.end || input === 'G') next = 0;
    if (next !== undefined) setScrolled(Math.max(0, Math.min(furthest, next)));
  });
  const recent = items.slice(-RECENT_ITEMS);
  const position = [
    furthest - offset > 0 ? `${furthest - offset} rows above` : '',
    offset > 0 ? `${offset} rows below` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>transcript</Text>
        <Text dimColor>
          {` · ${recent.length} recent items expanded · ↑↓ pgup pgdn scroll${position ? ` (${position})` : ''} · esc returns`}
        </Text>
      </Text>
      <Box height={height} overflow="hidden" flexDirection="column" justifyContent="flex-end">
        <Box ref={content} flexDirection="column" flexShrink={0} marginBottom={-offset}>
          {recent.length === 0 ? <Text dimColor>Nothing yet.</Text> : null}
          {recent.map((item) => (
            <TranscriptItemView key={item.id} item={item} width={width} expanded />
          ))}
        </Box>
      </Box>
    </Box>
  );
}
