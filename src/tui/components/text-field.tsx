/**
 * The one-line text of the request widgets' own words (a refusal's reason, an "Other" answer,
 * feedback on a plan): `editLine` applies a key (typed or pasted text joins the line with line
 * breaks as spaces, Backspace deletes, Enter submits) and `TextLine` draws it. The widget keeps
 * the text and its one key handler, so keys typed right after the field opens are never lost.
 */
import type { Key } from 'ink';
import { Text } from 'ink';

export type LineEdit = { kind: 'text'; text: string } | { kind: 'submit'; text: string };

export function editLine(text: string, input: string, key: Key): LineEdit {
  if (key.return) return { kind: 'submit', text };
  if (key.backspace || key.delete) {
    return { kind: 'text', text: Array.from(text).slice(0, -1).join('') };
  }
  const ignored =
    key.ctrl ||
    key.meta ||
    key.escape ||
    key.tab ||
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow;
  if (ignored || !input) return { kind: 'text', text };
  return { kind: 'text', text: text + input.replace(/\r?\n|\r/g, ' ') };
}

export function TextLine({
  label,
  text,
  placeholder = '',
}: {
  /** Shown before the text, such as `Why not?`. */
  label: string;
  text: string;
  /** Shown dimmed while the text is empty. */
  placeholder?: string;
}) {
  return (
    <Text>
      <Text color="cyan">{`${label} `}</Text>
      {text}
      <Text inverse> </Text>
      {text.length === 0 && placeholder ? <Text dimColor>{` ${placeholder}`}</Text> : null}
    </Text>
  );
}
