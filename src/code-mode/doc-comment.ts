/**
 * Renders free text (a tool's or a property's description) as a JSDoc comment for the generated
 * tool SDK. The text can never end the comment early (`*\/` is escaped) and keeps its line
 * breaks, without blank-line noise. Must never throw.
 */

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/** The comment's lines, each starting with `indent`; empty when the text has no content. */
export function docComment(text: string, indent: string): string[] {
  const lines = commentLines(text);
  if (lines.length === 0) return [];
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [
    `${indent}/**`,
    ...lines.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)),
    `${indent} */`,
  ];
}

/** Text that can sit inside a block comment without ending it. */
export function commentSafe(text: string): string {
  return text.replaceAll('*/', '*\\/');
}

function commentLines(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text.split(LINE_BREAK)) {
    const line = commentSafe(raw.trimEnd());
    if (line === '' && (lines.length === 0 || lines.at(-1) === '')) continue;
    lines.push(line);
  }
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
