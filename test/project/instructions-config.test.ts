/**
 * Config `instructions.files`: a list of plain file names; a path, an empty name, a repeated name
 * or a value that is not a list is an error naming the field and what it must be.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../src/config/load-config.js';

test('instructions.files takes a list of file names', () => {
  const config = parseConfig('instructions:\n  files: [LOOM.md, CLAUDE.md]\n', 'config.yaml');
  assert.deepEqual(config.instructions?.files, ['LOOM.md', 'CLAUDE.md']);
  assert.deepEqual(parseConfig('instructions:\n  files: []\n', 'config.yaml').instructions, {
    files: [],
  });
});

test('a bad instructions.files names the entry and says what it must be', () => {
  const problems = (text: string) => {
    try {
      parseConfig(text, 'config.yaml');
    } catch (error) {
      return (error as Error).message.split('\n').slice(1);
    }
    assert.fail(`accepted ${text}`);
  };
  assert.deepEqual(
    problems('instructions:\n  files: [docs/AGENTS.md, AGENTS.md, AGENTS.md, ""]\n'),
    [
      'config.yaml:2: instructions.files.0: must be a file name such as AGENTS.md, not a path: it is looked for in every folder',
      'config.yaml:2: instructions.files.3: must be a file name such as AGENTS.md',
      'config.yaml:2: instructions.files.2: lists "AGENTS.md" twice',
    ],
  );
  assert.deepEqual(problems('instructions:\n  files: AGENTS.md\n'), [
    'config.yaml:2: instructions.files: must be a list of file names, such as [AGENTS.md, CLAUDE.md]',
  ]);
  assert.deepEqual(problems('instructions:\n  file: [AGENTS.md]\n'), [
    'config.yaml:2: instructions.file: unknown field (did you mean files?)',
  ]);
});
