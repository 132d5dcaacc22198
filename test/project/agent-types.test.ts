import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadAgentTypes } from '../../src/project/agent-types.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const agent = (name: string, description: string, more = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${more}---\nYou are ${name} from ${description}.\n`;

function folders(files: { workspace?: Record<string, string>; home?: Record<string, string> }) {
  const workspace = temporaryFolder();
  const home = temporaryFolder();
  writeTree(workspace, files.workspace ?? {});
  writeTree(home, files.home ?? {});
  return { workspace, home };
}

test('without any file: the built-in general-purpose, Explore and Plan, sorted by name', () => {
  const types = loadAgentTypes(folders({}));
  assert.deepEqual(
    types.list().map((type) => [type.name, type.origin, type.tools]),
    [
      ['Explore', 'builtin', ['read_file', 'glob', 'grep']],
      ['general-purpose', 'builtin', undefined],
      ['Plan', 'builtin', ['read_file', 'glob', 'grep']],
    ],
  );
  assert.equal(types.find('general-purpose')?.prompt, '', 'the default child keeps Loom’s persona');
  assert.match(types.find('Plan')?.prompt ?? '', /answer with a plan/);
  assert.deepEqual(types.problems(), []);
  assert.equal(types.find('reviewer'), undefined);
});

test('precedence: .loom/agents, then .claude/agents, then $LOOM_HOME/agents; the winner says what it hides', () => {
  const where = folders({
    workspace: {
      '.loom/agents/reviewer.md': agent('reviewer', 'project'),
      '.claude/agents/reviewer.md': agent('reviewer', 'claude'),
      '.claude/agents/tester.md': agent('tester', 'claude'),
    },
    home: {
      'agents/reviewer.md': agent('reviewer', 'personal'),
      'agents/tester.md': agent('tester', 'personal'),
      'agents/mine.md': agent('mine', 'personal'),
    },
  });
  const types = loadAgentTypes(where);
  const reviewer = types.find('reviewer');
  assert.equal(reviewer?.description, 'project');
  assert.equal(reviewer?.origin, 'project');
  assert.equal(reviewer?.path, join(where.workspace, '.loom/agents/reviewer.md'));
  assert.deepEqual(reviewer?.hides, ['claude', 'personal']);
  assert.equal(reviewer?.prompt, 'You are reviewer from project.');
  assert.equal(types.find('tester')?.origin, 'claude');
  assert.equal(types.find('mine')?.origin, 'personal');
  assert.deepEqual(
    types.list().map((type) => type.name),
    ['Explore', 'general-purpose', 'mine', 'Plan', 'reviewer', 'tester'],
  );
});

test('a file named as a built-in type overrides it, also the default general-purpose', () => {
  const types = loadAgentTypes(
    folders({
      workspace: {
        '.claude/agents/Explore.md': agent('Explore', 'our explorer', 'tools: Read\n'),
        '.loom/agents/general-purpose.md': agent('general-purpose', 'our default'),
      },
    }),
  );
  assert.equal(types.find('Explore')?.description, 'our explorer');
  assert.deepEqual(types.find('Explore')?.tools, ['read_file']);
  assert.deepEqual(types.find('Explore')?.hides, ['builtin']);
  assert.equal(types.find('general-purpose')?.origin, 'project');
  assert.equal(types.list().length, 3);
});

test('plugin names: PLUGIN:agent is agent in a PLUGIN sub-folder, else a plain file agent of that name', () => {
  const where = folders({
    workspace: {
      '.loom/agents/acme/reviewer.md': agent('reviewer', 'acme reviewer'),
      '.claude/agents/linter.md': agent('linter', 'copied from a plugin'),
    },
    home: { 'agents/tools/helper.md': agent('helper', 'personal plugin') },
  });
  const types = loadAgentTypes(where);
  assert.equal(types.find('acme:reviewer')?.description, 'acme reviewer');
  assert.equal(types.find('acme:reviewer')?.name, 'acme:reviewer');
  assert.equal(types.find('reviewer'), undefined, 'a plugin agent keeps its prefix');
  assert.equal(types.find('tools:helper')?.origin, 'personal');
  assert.equal(
    types.find('someplugin:linter')?.path,
    join(where.workspace, '.claude/agents/linter.md'),
  );
  assert.equal(
    types.find('someplugin:Explore'),
    undefined,
    'never a built-in through a plugin name',
  );
  assert.ok(types.list().some((type) => type.name === 'acme:reviewer'));
});

test('a malformed file is a problem naming file and field; the other types load; its name is not served by a type it would hide', () => {
  const where = folders({
    workspace: {
      '.claude/agents/reviewer.md': '---\nname: reviewer\neffort: huge\n---\nbody\n',
      '.claude/agents/tester.md': agent('tester', 'tests'),
      '.claude/agents/notes.md': 'just some notes\n',
    },
    home: { 'agents/reviewer.md': agent('reviewer', 'personal') },
  });
  const types = loadAgentTypes(where);
  assert.equal(types.find('tester')?.description, 'tests');
  assert.equal(types.find('reviewer'), undefined);
  assert.deepEqual(
    types.problems().map(({ name, origin, path, problem }) => ({ name, origin, path, problem })),
    [
      {
        name: 'notes',
        origin: 'claude',
        path: join(where.workspace, '.claude/agents/notes.md'),
        problem:
          'no front matter: start the file with a --- line, then name: and description:, then a --- line and the prompt',
      },
      {
        name: 'reviewer',
        origin: 'claude',
        path: join(where.workspace, '.claude/agents/reviewer.md'),
        problem:
          'description: missing (say in one line what the agent is for); effort: must be low, medium, high or max (got "huge")',
      },
    ],
  );
});

test('two files of one folder with the same name: the second is a problem', () => {
  const where = folders({
    workspace: {
      '.loom/agents/a.md': agent('reviewer', 'first'),
      '.loom/agents/b.md': agent('reviewer', 'second'),
    },
  });
  const types = loadAgentTypes(where);
  assert.equal(types.find('reviewer')?.description, 'first');
  const [problem] = types.problems();
  assert.equal(problem?.path, join(where.workspace, '.loom/agents/b.md'));
  assert.match(
    problem?.problem ?? '',
    /^name: reviewer is already defined in this folder by .*a\.md$/,
  );
});

test('list and find hand out copies: a caller cannot change the service', () => {
  const types = loadAgentTypes(folders({}));
  const explore = types.find('Explore');
  explore?.tools?.push('bash');
  if (explore) explore.prompt = 'changed';
  assert.deepEqual(types.find('Explore')?.tools, ['read_file', 'glob', 'grep']);
  assert.notEqual(types.find('Explore')?.prompt, 'changed');
});
