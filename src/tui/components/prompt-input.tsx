/**
 * The prompt box: the text being written, with a cursor at its end. Enter sends; a trailing `\`
 * (or Shift+Enter where the terminal reports it) starts a new line; Up and Down walk the
 * history. Controlled: the owner holds the text, so it can clear it (Ctrl+C) or fill it.
 */
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import { useInput } from '../use-input.js';

export interface PromptInputProps {
  value: string;
  onChange(value: string): void;
  onSubmit(value: string): void;
  /** Earlier prompts, oldest first. */
  history: readonly string[];
  /** Another widget has the keyboard. */
  disabled?: boolean;
  placeholder?: string;
}

export function PromptInput({
  value,
  onChange: setValue,
  onSubmit,
  history,
  disabled = false,
  placeholder = '',
}: PromptInputProps) {
  const [historyIndex, setHistoryIndex] = useState<number | undefined>(undefined);
  // The text with every key so far, even those whose change React has not drawn yet.
  const typed = useRef(value);
  typed.current = value;
  const onChange = (next: string) => {
    typed.current = next;
    setValue(next);
  };
  useInput(
    (input, key) => {
      const value = typed.current;
      if (key.return) {
        if (key.shift || value.endsWith('\\')) {
          onChange(`${key.shift ? value : value.slice(0, -1)}\n`);
          return;
        }
        setHistoryIndex(undefined);
        onSubmit(value);
        return;
      }
      if (key.backspace || key.delete) {
        onChange(value.slice(0, -1));
        return;
      }
      if (key.upArrow) {
        if (history.length === 0) return;
        const index =
          historyIndex === undefined ? history.length - 1 : Math.max(0, historyIndex - 1);
        setHistoryIndex(index);
        onChange(history[index] ?? '');
        return;
      }
      if (key.downArrow) {
        if (historyIndex === undefined) return;
        const index = historyIndex + 1;
        if (index >= history.length) {
          setHistoryIndex(undefined);
          onChange('');
        } else {
          setHistoryIndex(index);
          onChange(history[index] ?? '');
        }
        return;
      }
      if (key.ctrl || key.meta || key.escape || key.tab || key.leftArrow || key.rightArrow) return;
      if (input) onChange(value + input.replace(/\r\n?/g, '\n'));
    },
    { isActive: !disabled },
  );
  const lines = value.split('\n');
  return (
    <Box
      borderStyle="round"
      borderColor={disabled ? 'gray' : 'cyan'}
      paddingX={1}
      flexDirection="column"
    >
      {value.length === 0 ? (
        <Text>
          <Text color="cyan">{'> '}</Text>
          <Text dimColor>{placeholder}</Text>
        </Text>
      ) : (
        lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <Text key={index}>
            <Text color="cyan">{index === 0 ? '> ' : '  '}</Text>
            {line}
            {index === lines.length - 1 ? <Text inverse> </Text> : null}
          </Text>
        ))
      )}
    </Box>
  );
}
