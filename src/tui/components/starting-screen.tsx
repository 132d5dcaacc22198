/**
 * The terminal while the session starts (the runtime loading after ink): the prompt box, which
 * takes keys and holds what is sent, and the footer's workspace and mode lines, drawn exactly as
 * the first frame drew them. Ctrl+D on an empty prompt and Ctrl+C act at once; the app's other
 * keys and every message sent are kept in order in `early`, for the app to act on once mounted.
 */
import { Box, type Key, Text } from 'ink';
import { useRef, useState } from 'react';
import { DEFAULT_MODE_LABEL, IDLE_KEYS, IDLE_PLACEHOLDER, shortWorkspace } from '../chrome-text.js';
import type { PromptEditor } from '../prompt-editor.js';
import { useCurrentInput } from '../use-current-input.js';
import { PromptInput, type SubmitDelivery } from './prompt-input.js';

/** Two Ctrl+C within this many milliseconds exit. */
export const DOUBLE_PRESS_MS = 1000;

/** What a person did before the session was ready, in order. */
export type EarlyInput =
  | { kind: 'submit'; text: string; delivery: SubmitDelivery }
  | { kind: 'key'; text: string; key: Key };

export interface StartingScreenProps {
  editor: PromptEditor;
  workspace: string;
  /** Appended to as keys arrive; the app reads it when it takes over. */
  early: EarlyInput[];
  onExit(): void;
}

export function StartingScreen({ editor, workspace, early, onExit }: StartingScreenProps) {
  const [hint, setHint] = useState<string | undefined>(undefined);
  const lastCtrlC = useRef(0);
  useCurrentInput((text, key) => {
    if (key.ctrl && text === 'c') {
      const now = Date.now();
      if (!editor.isEmpty) editor.clear();
      else if (now - lastCtrlC.current < DOUBLE_PRESS_MS) onExit();
      else {
        lastCtrlC.current = now;
        setHint('press ctrl+c again to exit');
      }
      return;
    }
    if (key.ctrl && text === 'd' && editor.isEmpty) {
      onExit();
      return;
    }
    if ((key.ctrl && text === 'o') || key.escape || (key.tab && key.shift)) {
      early.push({ kind: 'key', text, key });
    }
  });
  return (
    <Box flexDirection="column">
      <PromptInput
        editor={editor}
        onSubmit={(text, delivery) => early.push({ kind: 'submit', text, delivery })}
        placeholder={IDLE_PLACEHOLDER}
      />
      {hint ? <Text color="yellow">{hint}</Text> : null}
      <Text dimColor wrap="truncate-middle">
        {shortWorkspace(workspace)}
      </Text>
      <Text wrap="truncate-end">
        <Text color="gray">{DEFAULT_MODE_LABEL}</Text>
        <Text dimColor>{` · ${IDLE_KEYS}`}</Text>
      </Text>
    </Box>
  );
}
