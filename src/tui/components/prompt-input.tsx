/**
 * The prompt box. Enter sends; Shift+Enter (Alt+Enter, Ctrl+J, or a trailing `\`) starts a new
 * line; Ctrl+F sends as a follow-up after the running turn; arrows, Home/End and Ctrl+A/E/U/K/W
 * edit; Up and Down walk the history from the first and last line; Tab takes a completion. A
 * bracketed paste is kept whole (its line ends never send) and a large one shown folded; keys
 * read at once arrive one by one (use-current-input.ts), so an Enter among them sends. The
 * text lives in a `PromptEditor` the owner holds, so it can clear it (Ctrl+C) or read it.
 */
import { Box, type Key, Text } from 'ink';
import { useRef, useSyncExternalStore } from 'react';
import { PASTE_END, PASTE_START } from '../input-keys.js';
import type { Completion } from '../prompt-completion.js';
import {
  deleteBackward,
  deleteForward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  displayLines,
  type EditorState,
  insertPaste,
  insertText,
  moveLeft,
  moveLineDown,
  moveLineEnd,
  moveLineStart,
  moveLineUp,
  moveRight,
  type PromptEditor,
  replaceRange,
  typeChunk,
} from '../prompt-editor.js';
import { useCurrentInput } from '../use-current-input.js';
import { CompletionMenu } from './completion-menu.js';

/** How a message is sent: now (a turn, or a steer while one runs) or after the running turn. */
export type SubmitDelivery = 'send' | 'followup';

export interface PromptInputProps {
  editor: PromptEditor;
  onSubmit(text: string, delivery: SubmitDelivery): void;
  /** What can be completed at the cursor; none without it. */
  complete?(state: EditorState): Completion | undefined;
  /** Another widget has the keyboard. */
  disabled?: boolean;
  placeholder?: string;
}

export function PromptInput({
  editor,
  onSubmit,
  complete = () => undefined,
  disabled = false,
  placeholder = '',
}: PromptInputProps) {
  const { state, selected } = useSyncExternalStore(editor.subscribe, editor.getSnapshot);
  const pasting = useRef<string | undefined>(undefined);

  useCurrentInput(
    (input, key) => {
      if (pasting.current !== undefined) {
        if (input === PASTE_END) {
          const pasted = pasting.current;
          pasting.current = undefined;
          editor.update((current) => insertPaste(current, pasted));
        } else {
          pasting.current += key.return ? '\n' : key.tab ? '\t' : input;
        }
        return;
      }
      if (input === PASTE_START) {
        pasting.current = '';
        return;
      }
      handleKey(editor, input, key, complete, onSubmit);
    },
    { isActive: !disabled },
  );

  const completion = disabled ? undefined : complete(state);
  const lines = displayLines(state, !disabled);
  return (
    <Box flexDirection="column">
      <Box
        borderStyle="round"
        borderColor={disabled ? 'gray' : 'cyan'}
        paddingX={1}
        flexDirection="column"
      >
        {state.text.length === 0 ? (
          <Text>
            <Text color="cyan">{'> '}</Text>
            {disabled ? null : <Text inverse> </Text>}
            <Text dimColor>{placeholder}</Text>
          </Text>
        ) : (
          lines.map((segments, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
            <Text key={index}>
              <Text color="cyan">{index === 0 ? '> ' : '  '}</Text>
              {segments.map((segment, position) =>
                segment.kind === 'cursor' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
                  <Text key={position} inverse>
                    {segment.text}
                  </Text>
                ) : segment.kind === 'paste' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
                  <Text key={position} color="magenta">
                    {segment.text}
                  </Text>
                ) : (
                  segment.text
                ),
              )}
            </Text>
          ))
        )}
      </Box>
      {completion ? (
        <CompletionMenu
          choices={completion.choices}
          selected={Math.min(selected, completion.choices.length - 1)}
        />
      ) : null}
    </Box>
  );
}

function handleKey(
  editor: PromptEditor,
  input: string,
  key: Key,
  complete: (state: EditorState) => Completion | undefined,
  onSubmit: (text: string, delivery: SubmitDelivery) => void,
): void {
  const completion = complete(editor.state);
  const accept = (found: Completion) => {
    const choice = found.choices[Math.min(editor.selection, found.choices.length - 1)];
    if (choice)
      editor.update((state) => replaceRange(state, found.start, found.end, choice.replacement));
  };
  if (key.return) {
    if (key.shift || key.meta) {
      editor.update((state) => insertText(state, '\n'));
      return;
    }
    const { text, cursor } = editor.state;
    if (cursor > 0 && text[cursor - 1] === '\\') {
      editor.update((state) => insertText(deleteBackward(state), '\n'));
      return;
    }
    if (completion?.kind === 'command' && !isExactCommand(text, completion)) accept(completion);
    onSubmit(editor.take(), 'send');
    return;
  }
  if (input === '\n') {
    editor.update((state) => insertText(state, '\n'));
    return;
  }
  if (key.ctrl) {
    switch (input) {
      case 'f':
        onSubmit(editor.take(), 'followup');
        return;
      case 'a':
        editor.update(moveLineStart);
        return;
      case 'e':
        editor.update(moveLineEnd);
        return;
      case 'u':
        editor.update(deleteToLineStart);
        return;
      case 'k':
        editor.update(deleteToLineEnd);
        return;
      case 'w':
        editor.update(deleteWordBackward);
        return;
      case 'd':
        // On an empty prompt Ctrl+D exits (the app's key); otherwise it deletes forward.
        editor.update(deleteForward);
        return;
      default:
        return;
    }
  }
  if (key.tab) {
    if (!key.shift && completion) accept(completion);
    return;
  }
  if (key.upArrow) {
    if (completion) {
      editor.select((editor.selection + completion.choices.length - 1) % completion.choices.length);
      return;
    }
    const moved = moveLineUp(editor.state);
    if (moved) editor.update(() => moved);
    else editor.historyPrevious();
    return;
  }
  if (key.downArrow) {
    if (completion) {
      editor.select((editor.selection + 1) % completion.choices.length);
      return;
    }
    const moved = moveLineDown(editor.state);
    if (moved) editor.update(() => moved);
    else editor.historyNext();
    return;
  }
  // Terminals send DEL (0x7f) for Backspace, which ink names `delete`.
  const edit = key.leftArrow
    ? moveLeft
    : key.rightArrow
      ? moveRight
      : key.home
        ? moveLineStart
        : key.end
          ? moveLineEnd
          : key.backspace || key.delete
            ? deleteBackward
            : undefined;
  if (edit) {
    editor.update(edit);
    return;
  }
  if (key.meta || key.escape || input === '') return;
  editor.update((state) => typeChunk(state, input));
}

function isExactCommand(text: string, completion: Completion): boolean {
  const typed = text.slice(completion.start, completion.end);
  return completion.choices.some((choice) => choice.replacement.trim() === typed);
}
