/**
 * Draws one transcript block: the person's message, the assistant's Markdown, reasoning dimmed,
 * a tool line, a shell command's output, or a notice. Draws only.
 */
import { Box, Text } from 'ink';
import type { TranscriptItem } from '../contract.js';
import { Markdown } from './markdown.js';
import { ToolLine } from './tool-line.js';

export function TranscriptItemView({ item, width }: { item: TranscriptItem; width: number }) {
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
          <Markdown text={item.text} width={width} />
        </Box>
      );
    case 'reasoning':
      return (
        <Text dimColor italic>{`∴ ${item.text.replace(/\s+/g, ' ').slice(0, width - 4)}`}</Text>
      );
    case 'tool':
      return <ToolLine tool={item.tool} />;
    case 'shell':
      return (
        <Box flexDirection="column">
          <Text color="magenta">{`! ${item.command}`}</Text>
          <Text dimColor>{item.output.replace(/\n+$/, '')}</Text>
        </Box>
      );
    case 'notice':
      return (
        <Text color={item.tone === 'error' ? 'red' : item.tone === 'warning' ? 'yellow' : 'gray'}>
          {item.text}
        </Text>
      );
  }
}
