/**
 * What a custom command sends: its body with `$ARGUMENTS` (everything after the name) and `$1`…`$9`
 * (its words, split as a shell splits them: blanks separate, single and double quotes group, a
 * backslash escapes the next character) filled in. A body without any placeholder gets the
 * arguments appended on a line of their own, so nothing typed is lost. Pure; not a shell: no
 * variable, glob or command is expanded, and `#` is text.
 */

/** The words of `text`: blanks separate; quotes group and are removed; a backslash escapes. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index] as string;
    if (quote === "'") {
      if (character === "'") quote = undefined;
      else current += character;
      continue;
    }
    if (character === '\\' && index + 1 < text.length) {
      const next = text[index + 1] as string;
      // Inside double quotes a backslash escapes only what the shell lets it escape.
      if (quote === '"' && !['"', '\\', '$', '`'].includes(next)) current += character;
      else index += 1;
      current += next;
      started = true;
      continue;
    }
    if (quote === '"') {
      if (character === '"') quote = undefined;
      else current += character;
      continue;
    }
    if (character === '"' || character === "'") {
      quote = character;
      started = true;
    } else if (/\s/.test(character)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      current += character;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9])/g;

/** `body` with its placeholders filled from `args` (the text after the command's name). */
export function expandCommandBody(body: string, args: string): string {
  const whole = args.trim();
  const words = splitArguments(whole);
  if (!/\$(ARGUMENTS|[1-9])/.test(body)) {
    return whole === '' ? body : `${body}\n\nARGUMENTS: ${whole}`;
  }
  return body.replace(PLACEHOLDER, (_placeholder, key: string) =>
    key === 'ARGUMENTS' ? whole : (words[Number(key) - 1] ?? ''),
  );
}
