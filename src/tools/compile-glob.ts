/**
 * Turns a glob pattern into a regular expression over `/`-separated relative paths: `**` spans
 * folders, `*` and `?` stay inside one name, `[a-z]`/`[!a-z]` classes, `{a,b}` alternatives
 * (nested). Wildcards also match names that start with a dot. Never touches the file system.
 */

const magicCharacters = /[*?[{\\]/;

export function compileGlob(pattern: string): RegExp {
  return new RegExp(`^${translate(pattern, 0, pattern.length)}$`);
}

/** Splits off the leading folders that hold no wildcard, so a walk can start below them. */
export function splitGlobBase(pattern: string): { base: string; rest: string } {
  const segments = pattern.split('/');
  let staticCount = 0;
  while (staticCount < segments.length - 1 && !magicCharacters.test(segments[staticCount] ?? '')) {
    staticCount += 1;
  }
  const base = segments.slice(0, staticCount).join('/');
  return {
    base: base === '' && pattern.startsWith('/') ? '/' : base,
    rest: segments.slice(staticCount).join('/'),
  };
}

function translate(pattern: string, start: number, end: number): string {
  let output = '';
  let index = start;
  while (index < end) {
    const character = pattern[index] as string;
    if (character === '*') {
      const { source, next } = translateStar(pattern, index, end);
      output += source;
      index = next;
    } else if (character === '?') {
      output += '[^/]';
      index += 1;
    } else if (character === '[') {
      const closing = findClassEnd(pattern, index, end);
      if (closing === -1) {
        output += '\\[';
        index += 1;
      } else {
        output += translateClass(pattern.slice(index + 1, closing));
        index = closing + 1;
      }
    } else if (character === '{') {
      const alternatives = findAlternatives(pattern, index, end);
      if (alternatives === undefined) {
        output += '\\{';
        index += 1;
      } else {
        const parts = alternatives.bounds.map(([from, to]) => translate(pattern, from, to));
        output += `(?:${parts.join('|')})`;
        index = alternatives.closing + 1;
      }
    } else if (character === '\\' && index + 1 < end) {
      output += escapeLiteral(pattern[index + 1] as string);
      index += 2;
    } else {
      output += escapeLiteral(character);
      index += 1;
    }
  }
  return output;
}

function translateStar(
  pattern: string,
  index: number,
  end: number,
): { source: string; next: number } {
  let next = index;
  while (next < end && pattern[next] === '*') next += 1;
  const before = index === 0 ? '/' : pattern[index - 1];
  const after = next >= end ? '/' : pattern[next];
  const wholeSegment = next - index >= 2 && isSegmentEdge(before) && isSegmentEdge(after);
  if (!wholeSegment) return { source: '[^/]*', next };
  if (pattern[next] === '/') return { source: '(?:.*/)?', next: next + 1 };
  return { source: '.*', next };
}

function isSegmentEdge(character: string | undefined): boolean {
  return character === '/' || character === '{' || character === ',' || character === '}';
}

function findClassEnd(pattern: string, open: number, end: number): number {
  let index = open + 1;
  if (pattern[index] === '!' || pattern[index] === '^') index += 1;
  if (pattern[index] === ']') index += 1;
  while (index < end) {
    if (pattern[index] === '\\') index += 2;
    else if (pattern[index] === ']') return index;
    else index += 1;
  }
  return -1;
}

function translateClass(body: string): string {
  const negated = body.startsWith('!') || body.startsWith('^');
  const members = negated ? body.slice(1) : body;
  let source = '';
  for (let index = 0; index < members.length; index += 1) {
    const character = members[index] as string;
    if (character === '\\' && index + 1 < members.length) {
      source += `\\${members[index + 1]}`;
      index += 1;
    } else if (character === '-' && index > 0 && index < members.length - 1) {
      source += '-';
    } else {
      source += /[\\\]^[-]/.test(character) ? `\\${character}` : character;
    }
  }
  return negated ? `[^/${source}]` : `(?!/)[${source}]`;
}

function findAlternatives(
  pattern: string,
  open: number,
  end: number,
): { bounds: Array<[number, number]>; closing: number } | undefined {
  const bounds: Array<[number, number]> = [];
  let depth = 0;
  let partStart = open + 1;
  for (let index = open + 1; index < end; index += 1) {
    const character = pattern[index];
    if (character === '\\') index += 1;
    else if (character === '{') depth += 1;
    else if (character === '}' && depth > 0) depth -= 1;
    else if (character === ',' && depth === 0) {
      bounds.push([partStart, index]);
      partStart = index + 1;
    } else if (character === '}') {
      bounds.push([partStart, index]);
      return { bounds, closing: index };
    }
  }
  return undefined;
}

function escapeLiteral(character: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(character) ? `\\${character}` : character;
}
