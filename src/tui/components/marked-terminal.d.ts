/** The part of `marked-terminal` (which ships no types) that Loom uses. */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';
  export function markedTerminal(
    options?: { width?: number; reflowText?: boolean; tab?: number },
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
