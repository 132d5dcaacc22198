/**
 * Reading skills: SKILL.md folders in .loom/skills, .claude/skills and $LOOM_HOME/skills, the
 * project's hiding the person's of the same name, and a malformed file reported by file, line and
 * field while the others still load.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { problemLine } from '../../src/project/markdown-front-matter.js';
import { loadSkills } from '../../src/project/skill-files.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function skill(name: string, description: string, body = 'Do the thing.'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

test('skills load from the three folders; the project hides a personal skill of the same name', () => {
  const workspace = temporaryFolder();
  const home = temporaryFolder();
  writeTree(workspace, {
    '.loom/skills/release/SKILL.md': skill('release', 'Cut a release (loom folder)'),
    '.claude/skills/release/SKILL.md': skill('release', 'Cut a release (claude folder)'),
    '.claude/skills/pdf/SKILL.md': skill('pdf', 'Fill PDF forms', '# PDF\nUse scripts/fill.py.'),
    '.claude/skills/pdf/scripts/fill.py': 'print(1)\n',
    '.claude/skills/notes/README.md': 'a folder without SKILL.md is no skill\n',
  });
  writeTree(home, {
    'skills/release/SKILL.md': skill('release', 'Cut a release (personal)'),
    'skills/deploy/SKILL.md': skill('deploy', 'Deploy to staging'),
  });
  const catalog = loadSkills({ workspace, home });
  assert.deepEqual(
    catalog.list().map((entry) => [entry.name, entry.origin, entry.description]),
    [
      ['deploy', 'personal', 'Deploy to staging'],
      ['pdf', 'claude', 'Fill PDF forms'],
      ['release', 'project', 'Cut a release (loom folder)'],
    ],
  );
  assert.equal(catalog.find('pdf')?.body, '# PDF\nUse scripts/fill.py.');
  assert.equal(catalog.find('pdf')?.folder, join(workspace, '.claude/skills/pdf'));
  assert.deepEqual(
    catalog.hidden.map((entry) => [entry.file, entry.hiddenBy]),
    [
      [
        join(workspace, '.claude/skills/release/SKILL.md'),
        join(workspace, '.loom/skills/release/SKILL.md'),
      ],
      [join(home, 'skills/release/SKILL.md'), join(workspace, '.loom/skills/release/SKILL.md')],
    ],
  );
  assert.deepEqual(catalog.problems, []);
});

test('a malformed skill is reported by file, line and field and left out; the others load', () => {
  const workspace = temporaryFolder();
  const home = temporaryFolder();
  writeTree(workspace, {
    '.claude/skills/good/SKILL.md': skill('good', 'Works'),
    '.claude/skills/Bad/SKILL.md': '---\nname: Bad_Name\ndescription: x\n---\nbody\n',
    '.claude/skills/nodesc/SKILL.md': '---\nname: nodesc\n---\nbody\n',
    '.claude/skills/plain/SKILL.md': 'no front matter here\n',
    '.claude/skills/broken/SKILL.md':
      '---\nname: broken\ndescription: [unclosed\nnot a field\n---\n',
    '.claude/skills/open/SKILL.md': '---\nname: open\ndescription: never closed\n',
    '.claude/skills/extra/SKILL.md':
      '---\nname: extra\ndescription: Has more\nversion: 2\nallowed-tools: Bash(git:*) Read\n---\nbody\n',
    '.claude/skills/other-folder/SKILL.md': skill('renamed', 'Named unlike its folder'),
  });
  const catalog = loadSkills({ workspace, home });
  assert.deepEqual(
    catalog.list().map((entry) => entry.name),
    ['extra', 'good', 'renamed'],
  );
  assert.deepEqual(catalog.find('extra')?.suggestedTools, ['Bash(git:*)', 'Read']);
  const lines = catalog.problems.map((problem) =>
    problemLine({ ...problem, file: problem.file.slice(workspace.length + 1) }),
  );
  assert.deepEqual(lines, [
    '.claude/skills/Bad/SKILL.md:2: name: "Bad_Name" must be lowercase letters, digits and single hyphens, at most 64 characters; the skill is left out',
    '.claude/skills/broken/SKILL.md:4: front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]; the skill is left out',
    '.claude/skills/extra/SKILL.md:4: version: is not a field Loom reads (name, description, license, compatibility, metadata, allowed-tools); left unread',
    '.claude/skills/nodesc/SKILL.md: description: is missing; the skill is left out',
    '.claude/skills/open/SKILL.md:1: front matter opened with --- is never closed by a --- line; the skill is left out',
    ".claude/skills/other-folder/SKILL.md:2: name: renamed differs from its folder's name other-folder; it is known as renamed",
    '.claude/skills/plain/SKILL.md:1: has no front matter: start it with ---, name: and description: lines, then ---; the skill is left out',
  ]);
});

test('a description over 1024 characters is refused, naming its length', () => {
  const workspace = temporaryFolder();
  writeTree(workspace, { '.loom/skills/long/SKILL.md': skill('long', 'x'.repeat(1025)) });
  const catalog = loadSkills({ workspace, home: temporaryFolder() });
  assert.deepEqual(catalog.list(), []);
  assert.match(
    catalog.problems[0]?.message ?? '',
    /^description: has 1025 characters; at most 1024/,
  );
  assert.equal(catalog.problems[0]?.line, 3);
});

test('front matter YAML refuses is read as Claude Code reads it: name: text lines, indented lines continuing', () => {
  const workspace = temporaryFolder();
  writeTree(workspace, {
    '.claude/skills/triage/SKILL.md':
      '---\nname: triage\ndescription: Use when: a bug report arrives;\n  sort it by severity\n---\nSort.\n',
  });
  const catalog = loadSkills({ workspace, home: temporaryFolder() });
  assert.deepEqual(catalog.problems, []);
  assert.equal(
    catalog.find('triage')?.description,
    'Use when: a bug report arrives; sort it by severity',
  );
});

test('a skill whose front matter expands YAML aliases past the limit is left out; the others load', () => {
  const workspace = temporaryFolder();
  const aliases = Array.from({ length: 25 }, () => '*a').join(', ');
  writeTree(workspace, {
    '.claude/skills/good/SKILL.md': skill('good', 'Works'),
    '.claude/skills/hostile/SKILL.md': `---\nname: hostile\ndescription: d\nx: &a [1, 2]\ny: [${aliases}]\n---\nbody\n`,
  });
  const catalog = loadSkills({ workspace, home: temporaryFolder() });
  assert.deepEqual(
    catalog.list().map((entry) => entry.name),
    ['good'],
  );
  assert.deepEqual(
    catalog.problems.map((problem) => problemLine({ ...problem, file: 'SKILL.md' })),
    [
      'SKILL.md: front matter expands YAML aliases (*name) more than 20 times, more than a setup file needs: write the values out instead of repeating aliases; the skill is left out',
    ],
  );
});
