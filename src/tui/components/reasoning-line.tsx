/**
 * The model's reasoning, dimmed: collapsed to one line (its start, and "ctrl+o" when more is
 * hidden) in the chat, or the whole text in the transcript view. Draws only.
 */
import { Box, Text } from 'ink';

export interface ReasoningLineProps {
  text: string;
  width: number;
  expanded?: boolean;
}

export function ReasoningLine({ text, width, expanded = false }: ReasoningLineProps) {
  if (expanded) {
    return (
      <Box flexDirection="column">
        <Text dimColor italic>
          ∴ reasoning
        </Text>
        <Text dimColor italic>
          {text.replace(/\s+$/, '')}
        </Text>
      </Box>
    );
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  const room = Math.max(8, width - 2);
  if ([...flat].length <= room) {
    return <Text dimColor italic>{`∴ ${flat}`}</Text>;
  }
  const hint = ' · ctrl+o';
  const shown = [...flat].slice(0, Math.max(1, room - hint.length - 1)).join('');
  return (
    <Text dimColor italic wrap="truncate-end">
      {`∴ ${shown}…`}
      <Text italic={false}>{hint}</Text>
    </Text>
  );
}
