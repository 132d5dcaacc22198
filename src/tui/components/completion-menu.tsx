/**
 * The completion menu under the prompt: the choices for a slash command or an `@path`, the
 * highlighted one marked. Tab takes the highlighted choice, Up and Down move it. Draws only.
 */
import { Box, Text } from 'ink';
import type { CompletionChoice } from '../prompt-completion.js';

export function CompletionMenu({
  choices,
  selected,
}: {
  choices: readonly CompletionChoice[];
  selected: number;
}) {
  return (
    <Box flexDirection="column" paddingX={1}>
      {choices.map((choice, index) => (
        <Text key={choice.label} wrap="truncate-end">
          <Text color={index === selected ? 'cyan' : undefined} bold={index === selected}>
            {`${index === selected ? '›' : ' '} ${choice.label}`}
          </Text>
          {choice.detail ? <Text dimColor>{` — ${choice.detail}`}</Text> : null}
        </Text>
      ))}
      <Text dimColor>tab completes · ↑↓ choose</Text>
    </Box>
  );
}
