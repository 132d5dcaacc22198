/**
 * The skills layer on a real agent: the protected `skills` section lists names and descriptions,
 * `skill {name}` returns the body and the files beside it, an unknown name fails with the known
 * ones, a personal skill's files are readable by read_file (and not writable), and without skills
 * an agent gets neither tool nor section.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { installSkills } from '../../src/project/skill-install.js';
import { builtinTools } from '../../src/tools/index.js';
import { writeTree } from '../helpers/file-tree.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('the section lists the skills; skill returns body and files; a personal file reads but never writes', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeTree(workspace, {
    '.claude/skills/release/SKILL.md':
      '---\nname: release\ndescription: Cut a release:\n  bump, tag, push\n---\n# Release\nRun scripts/bump.sh.\n',
    '.claude/skills/release/scripts/bump.sh': 'echo bump\n',
  });
  writeTree(home, {
    'skills/notes/SKILL.md':
      '---\nname: notes\ndescription: Write release notes\n---\nSee template.md.\n',
    'skills/notes/template.md': '## Notes template\n',
  });
  const template = join(home, 'skills/notes/template.md');
  const model = createScriptedModel({
    rules: [
      callsThenReply(
        'go',
        [
          [
            { name: 'skill', arguments: { name: 'release' } },
            { name: 'skill', arguments: { name: 'notes' } },
            { name: 'skill', arguments: { name: 'nope' } },
          ],
          { name: 'read_file', arguments: { path: template } },
          { name: 'write_file', arguments: { path: template, content: 'changed' } },
        ],
        'done',
      ),
    ],
  });
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: workspace,
    resolveModel: () => model,
  });
  runtime.offerTools(builtinTools({ workspace: { root: workspace, extraRoots: [] } }));
  const lines: string[] = [];
  installSkills(runtime, { report: (line) => lines.push(line) });
  assert.deepEqual(lines, []);
  const handle = runtime.start();
  const outcome = await handle.agent.prompt('go');
  assert.equal(outcome.reason, 'completed');
  const system = model.calls[0]?.system ?? '';
  assert.match(
    system,
    /# Skills\n.*call `skill` with its name.*\n- notes: Write release notes\n- release: Cut a release: bump, tag, push/,
  );
  assert.ok(model.calls[0]?.tools.some((tool) => tool.name === 'skill'));
  const results = toolResults(handle.log.events);
  assert.equal(
    results[0]?.content,
    [
      'skill release (.claude/skills/release/SKILL.md)',
      'folder: .claude/skills/release',
      'files beside SKILL.md:',
      '- .claude/skills/release/scripts/bump.sh',
      '',
      '# Release\nRun scripts/bump.sh.',
    ].join('\n'),
  );
  assert.match(results[1]?.content ?? '', new RegExp(`- ${template}\n\nSee template\\.md\\.$`));
  assert.equal(results[2]?.isError, true);
  assert.equal(results[2]?.errorCode, 'SKILL_NOT_FOUND');
  assert.equal(results[2]?.content, 'no skill is called "nope"; the skills are notes, release');
  assert.match(results[3]?.content ?? '', /## Notes template/);
  assert.equal(results[4]?.isError, true, 'the personal folder is open for reading only');
  assert.match(results[4]?.content ?? '', /outside the workspace/);
  handle.close();
});

test('without skills an agent has no skill tool and no skills section', async () => {
  const home = temporaryFolder();
  const model = createScriptedModel({ default: { reply: 'ok' } });
  const runtime = runtimeOver(model, home);
  const layer = installSkills(runtime, { report: () => {} });
  assert.deepEqual(layer.catalog.list(), []);
  assert.ok(
    runtime.toolCatalog.entries().some((entry) => entry.name === 'skill'),
    'declared for config checks',
  );
  const handle = runtime.start();
  await handle.agent.prompt('hello');
  assert.doesNotMatch(model.calls[0]?.system ?? '', /# Skills/);
  assert.ok(!model.calls[0]?.tools.some((tool) => tool.name === 'skill'));
  handle.close();
});

test('malformed skill files are reported one line each, naming file, line and field', () => {
  const home = temporaryFolder();
  writeTree(home, { 'skills/bad/SKILL.md': '---\nname: bad\n---\nno description\n' });
  const runtime = runtimeOver(createScriptedModel({ default: { reply: 'ok' } }), home);
  const lines: string[] = [];
  installSkills(runtime, { report: (line) => lines.push(line) });
  assert.deepEqual(lines, [
    `loom: skill ${join(home, 'skills/bad/SKILL.md')}: description: is missing; the skill is left out\n`,
  ]);
});
