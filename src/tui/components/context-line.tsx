/**
 * A dim line about the context (a warning, a compaction). A summarizing compaction's summary is
 * folded under it to one hint line until the transcript view (ctrl+o) shows it whole. Draws only.
 */
import { Box, Text } from 'ink';
import { FoldHint, foldLines, textLines } from './folded-lines.js';

export function ContextLine({
  text,
  detail,
  expanded,
}: {
  text: string;
  detail: string | undefined;
  expanded: boolean;
}) {
  if (detail === undefined) return <Text dimColor>{text}</Text>;
  const { shown, hidden } = foldLines(textLines(detail), 0, expanded);
  return (
    <Box flexDirection="column">
      <Text dimColor>{text}</Text>
      {shown.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one finished summary never move
        <Text key={index} dimColor>{`  ${line}`}</Text>
      ))}
      <FoldHint hidden={hidden} indent="  " />
    </Box>
  );
}
