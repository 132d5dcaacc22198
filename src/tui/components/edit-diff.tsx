/**
 * An edit as a coloured diff: `edit_file` as its old text against its new text, `write_file` as
 * the written content (every line added). Removed lines red with `-`, added lines green with `+`,
 * shared lines dim. Folded to a few lines unless expanded. Draws only; never reads the file.
 */
import { Box, Text } from 'ink';
import { addedLines, type DiffLine, diffLines } from '../line-diff.js';
import { DIFF_PREVIEW_LINES, FoldHint, foldLines } from './folded-lines.js';

/** The diff an edit tool's arguments describe, or undefined for any other call. */
export function diffOfCall(name: string, args: unknown): DiffLine[] | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const fields = args as Record<string, unknown>;
  if (
    name === 'edit_file' &&
    typeof fields.old_string === 'string' &&
    typeof fields.new_string === 'string'
  ) {
    return diffLines(fields.old_string, fields.new_string);
  }
  if (name === 'write_file' && typeof fields.content === 'string') {
    return addedLines(fields.content);
  }
  return undefined;
}

const STYLE: Record<DiffLine['kind'], { sign: string; color?: string }> = {
  removed: { sign: '-', color: 'red' },
  added: { sign: '+', color: 'green' },
  context: { sign: ' ' },
};

export interface EditDiffProps {
  lines: readonly DiffLine[];
  expanded?: boolean;
  /** Spaces before each line. */
  indent?: string;
}

export function EditDiff({ lines, expanded = false, indent = '    ' }: EditDiffProps) {
  const { shown, hidden } = foldLines(lines, DIFF_PREVIEW_LINES, expanded);
  return (
    <Box flexDirection="column">
      {shown.map((line, index) => {
        const style = STYLE[line.kind];
        return (
          <Text
            // biome-ignore lint/suspicious/noArrayIndexKey: diff lines have no identity but their place
            key={index}
            color={style.color}
            dimColor={line.kind === 'context'}
            wrap={expanded ? 'wrap' : 'truncate-end'}
          >{`${indent}${style.sign} ${line.text}`}</Text>
        );
      })}
      <FoldHint hidden={hidden} indent={indent} />
    </Box>
  );
}
