/**
 * Draws one transcript block: the person's message, the assistant's Markdown, reasoning dimmed
 * on one line, a tool line, a shell command's output, or a notice. Long blocks are folded unless
 * `expanded` (the transcript view); `maxRows` keeps streaming text within the screen. Draws only.
 */
import { Box, Text } from 'ink';
import type { TranscriptItem } from '../contract.js';
import { ContextLine } from './context-line.js';
import { FoldHint, foldLines, SHELL_PREVIEW_LINES, textLines } from './folded-lines.js';
import { Markdown } from './markdown.js';
import { ReasoningLine } from './reasoning-line.js';
import { ToolLine } from './tool-line.js';

export interface TranscriptItemViewProps {
  item: TranscriptItem;
  width: number;
  /** Show everything: full reasoning, full results and diffs. */
  expanded?: boolean;
  /** Streaming text shows only its last rows that fit in this many. */
  maxRows?: number;
}

export function TranscriptItemView({
  item,
  width,
  expanded = false,
  maxRows,
}: TranscriptItemViewProps) {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color="cyan">{'> '}</Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box marginTop={1}>
          <Markdown
            text={item.text}
            width={width}
            {...(maxRows !== undefined ? { tailRows: maxRows } : {})}
          />
        </Box>
      );
    case 'reasoning':
      return <ReasoningLine text={item.text} width={width} expanded={expanded} />;
    case 'tool':
      return <ToolLine tool={item.tool} expanded={expanded} />;
    case 'shell': {
      const { shown, hidden } = foldLines(textLines(item.output), SHELL_PREVIEW_LINES, expanded);
      return (
        <Box flexDirection="column">
          <Text color="magenta">{`! ${item.command}`}</Text>
          <Text dimColor>{shown.join('\n')}</Text>
          <FoldHint hidden={hidden} />
        </Box>
      );
    }
    case 'context':
      return <ContextLine text={item.text} detail={item.detail} expanded={expanded} />;
    case 'notice':
      return (
        <Text color={item.tone === 'error' ? 'red' : item.tone === 'warning' ? 'yellow' : 'gray'}>
          {item.text}
        </Text>
      );
  }
}
