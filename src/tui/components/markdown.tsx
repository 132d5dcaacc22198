/**
 * Assistant text as Markdown for a terminal, through `marked` with `marked-terminal` (headings,
 * lists, tables, code blocks highlighted). Rendering is pure: the same text gives the same lines.
 */
import { Text } from 'ink';
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

let renderer: Marked | undefined;

export function renderMarkdown(text: string, width: number): string {
  renderer ??= new Marked(markedTerminal({ width, reflowText: false, tab: 2 }));
  const rendered = renderer.parse(text, { async: false }) as string;
  return rendered.replace(/\n+$/, '');
}

export function Markdown({ text, width = 80 }: { text: string; width?: number }) {
  return <Text>{renderMarkdown(text, width)}</Text>;
}
