/**
 * The terminal's size for the interactive app, and the redraw after its width changes. A
 * terminal reflows what is already on screen when its width changes, so ink's idea of where its
 * live region starts goes stale and old borders would stay behind. After the width settles, the
 * screen and scrollback are cleared (through ink, which then redraws the live region) and the
 * transcript's static region is printed again at the new width. Never writes anything else.
 */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** A drag of the window sends many resizes; the redraw waits until none came for this long. */
const SETTLE_MS = 60;

/** Erase the screen, erase the scrollback, cursor home. */
const CLEAR_SCREEN_AND_SCROLLBACK = '\u001b[2J\u001b[3J\u001b[H';

export interface TerminalSize {
  columns: number;
  rows: number;
}

/** The terminal's columns and rows, updated on resize. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState<TerminalSize>(() => sizeOf(stdout));
  useEffect(() => {
    const update = () => setSize(sizeOf(stdout));
    stdout.on('resize', update);
    return () => {
      stdout.off('resize', update);
    };
  }, [stdout]);
  return size;
}

/**
 * How many times the screen was redrawn for a new width: key the `<Static>` region on it, so
 * the finished transcript is printed again after the clear.
 */
export function useWidthRedraw(): number {
  const { stdout, write } = useStdout();
  const [redraws, setRedraws] = useState(0);
  useEffect(() => {
    let drawnColumns = stdout.columns;
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      timer = undefined;
      if (stdout.columns === drawnColumns) return;
      drawnColumns = stdout.columns;
      write(CLEAR_SCREEN_AND_SCROLLBACK);
      setRedraws((count) => count + 1);
    };
    const resized = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(settle, SETTLE_MS);
    };
    stdout.on('resize', resized);
    return () => {
      stdout.off('resize', resized);
      if (timer) clearTimeout(timer);
    };
  }, [stdout, write]);
  return redraws;
}

function sizeOf(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}
