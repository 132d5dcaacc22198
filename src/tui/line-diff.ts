/**
 * A line diff for showing an edit in the terminal: the lines both texts share (context), the
 * lines only the old text has (removed) and the lines only the new one has (added), in order.
 * Pure; it never reads files. Very large inputs fall back to "all removed, then all added"
 * between their common first and last lines, so the cost stays bounded.
 */

export type DiffLineKind = 'context' | 'removed' | 'added';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Above this many cells (old lines × new lines) the middle is not aligned line by line. */
const ALIGNMENT_CELL_LIMIT = 250_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const old = splitLines(before);
  const next = splitLines(after);
  let start = 0;
  while (start < old.length && start < next.length && old[start] === next[start]) start++;
  let oldEnd = old.length;
  let nextEnd = next.length;
  while (oldEnd > start && nextEnd > start && old[oldEnd - 1] === next[nextEnd - 1]) {
    oldEnd--;
    nextEnd--;
  }
  const lines: DiffLine[] = old.slice(0, start).map((text) => ({ kind: 'context', text }));
  lines.push(...alignMiddle(old.slice(start, oldEnd), next.slice(start, nextEnd)));
  lines.push(...old.slice(oldEnd).map((text): DiffLine => ({ kind: 'context', text })));
  return lines;
}

/** Every line of a new file's content, as added lines. */
export function addedLines(content: string): DiffLine[] {
  return splitLines(content).map((text) => ({ kind: 'added', text }));
}

function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The longest common subsequence of lines decides which lines stay as context. */
function alignMiddle(old: string[], next: string[]): DiffLine[] {
  if (old.length * next.length > ALIGNMENT_CELL_LIMIT) {
    return [
      ...old.map((text): DiffLine => ({ kind: 'removed', text })),
      ...next.map((text): DiffLine => ({ kind: 'added', text })),
    ];
  }
  const width = next.length + 1;
  // common[i * width + j]: length of the longest common subsequence of old[i..] and next[j..].
  const common = new Uint32Array((old.length + 1) * width);
  for (let i = old.length - 1; i >= 0; i--) {
    for (let j = next.length - 1; j >= 0; j--) {
      common[i * width + j] =
        old[i] === next[j]
          ? (common[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(common[(i + 1) * width + j] ?? 0, common[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length && j < next.length) {
    if (old[i] === next[j]) {
      lines.push({ kind: 'context', text: old[i] ?? '' });
      i++;
      j++;
    } else if ((common[(i + 1) * width + j] ?? 0) >= (common[i * width + j + 1] ?? 0)) {
      lines.push({ kind: 'removed', text: old[i] ?? '' });
      i++;
    } else {
      lines.push({ kind: 'added', text: next[j] ?? '' });
      j++;
    }
  }
  for (; i < old.length; i++) lines.push({ kind: 'removed', text: old[i] ?? '' });
  for (; j < next.length; j++) lines.push({ kind: 'added', text: next[j] ?? '' });
  return lines;
}
