import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildRuntime } from '../../src/cli/build-runtime.js';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import {
  checkPermissionRules,
  closestName,
  permissionRuleProblems,
} from '../../src/config/permission-check.js';
import { ToolCatalog } from '../../src/core/tool-catalog.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function catalog() {
  const tools = new ToolCatalog();
  tools.declare([
    { name: 'bash', parameters: { type: 'object', properties: { command: {}, timeout_ms: {} } } },
    { name: 'read_file', parameters: { type: 'object', properties: { path: {}, offset: {} } } },
  ]);
  tools.declare([{ name: 'structured_output', parameters: { type: 'object' } }]);
  return tools;
}

test('closestName suggests a likely typo and nothing for an unrelated word', () => {
  const names = ['bash', 'read_file', 'write_file', 'glob', 'grep'];
  assert.equal(closestName('bsh', names), 'bash');
  assert.equal(closestName('raed_file', names), 'read_file');
  assert.equal(closestName('Grep', names), 'grep');
  assert.equal(closestName('teleport', names), undefined);
});

test('an unknown tool or argument names the file, the line and the closest valid name', () => {
  const text = [
    'model: x',
    'permissions:',
    '  - tool: bash',
    '    match: { command: "ls *" }',
    '    action: allow',
    '  - tool: bsh',
    '    action: deny',
    '  - tool: read_file',
    '    match:',
    '      pth: "*.env"',
    '    action: deny',
    '  - { tool: "*", match: { comand: "rm *" }, action: ask }',
    '  - { tool: structured_output, match: { anything: "*" }, action: ask }',
    '  - { tool: teleport, action: deny }',
  ].join('\n');
  const config = parseConfig(text, '/p/.loom/config.yaml');
  const problems = permissionRuleProblems(config.permissions ?? [], catalog().entries());
  assert.deepEqual(problems, [
    '/p/.loom/config.yaml:6: permissions[1].tool: unknown tool "bsh" (did you mean bash?)',
    '/p/.loom/config.yaml:10: permissions[2].match.pth: tool read_file has no argument "pth" (did you mean path?)',
    '/p/.loom/config.yaml:12: permissions[3].match.comand: no tool has an argument "comand" (did you mean command?)',
    '/p/.loom/config.yaml:14: permissions[5].tool: unknown tool "teleport" (known tools: bash, read_file, structured_output)',
  ]);
  assert.throws(
    () => checkPermissionRules(config.permissions ?? [], catalog().entries()),
    (error: Error & { code?: string }) =>
      error.code === 'INVALID_CONFIG' &&
      /config\.yaml:6: .*did you mean bash\?/.test(error.message),
  );
});

test('merged files keep each rule’s own file and index', () => {
  const home = temporaryFolder();
  const project = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'permissions:\n  - { tool: glob, action: deny }\n');
  mkdirSync(join(project, '.loom'));
  writeFileSync(
    join(project, '.loom', 'config.yaml'),
    'permissions:\n  - { tool: bash, action: ask }\n  - { tool: bassh, action: deny }\n',
  );
  const config = loadConfig(home, project);
  const problems = permissionRuleProblems(config.permissions ?? [], catalog().entries());
  assert.deepEqual(problems, [
    `${join(project, '.loom', 'config.yaml')}:3: permissions[1].tool: unknown tool "bassh" (did you mean bash?)`,
    `${join(home, 'config.yaml')}:2: permissions[0].tool: unknown tool "glob" (known tools: bash, read_file, structured_output)`,
  ]);
});

test('the runtime declares every tool its agents get, so layer tools are valid rule names', () => {
  const home = temporaryFolder();
  const model = join(home, 'model.json');
  writeFileSync(model, JSON.stringify({ default: { reply: 'ok' } }));
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'permissions:',
      '  - { tool: job_kill, match: { job_id: "bash-*" }, action: ask }',
      '  - { tool: workflow, match: { run_in_background: "true" }, action: deny }',
      '  - { tool: subagent, action: allow }',
      '  - { tool: report, action: allow }',
      '  - { tool: bash, match: { command: "rm *", run_in_background: "*" }, action: deny }',
    ].join('\n'),
  );
  const setup = buildRuntime({ cwd: home, home, model: `scripted:${model}` });
  try {
    const declared = new Set(setup.runtime.toolCatalog.entries().map((entry) => entry.name));
    const handle = setup.runtime.start();
    try {
      const given = handle.tools.visible().map((tool) => tool.name);
      assert.ok(given.length > 8, given.join(', '));
      for (const name of given) assert.ok(declared.has(name), `${name} is not declared`);
      for (const name of ['report', 'structured_output']) assert.ok(declared.has(name), name);
    } finally {
      handle.close();
    }
  } finally {
    setup.workflow.dispose();
    setup.subagents.dispose();
    setup.jobs.dispose();
  }
  writeFileSync(join(home, 'config.yaml'), 'permissions:\n  - { tool: job_kil, action: deny }\n');
  assert.throws(
    () => buildRuntime({ cwd: home, home, model: `scripted:${model}` }),
    /config\.yaml:2: permissions\[0\]\.tool: unknown tool "job_kil" \(did you mean job_kill\?\)/,
  );
});

test('rules may name MCP tools no server has offered yet; other patterns must match a tool', () => {
  const text = [
    'permissions:',
    '  - { tool: "mcp__github__*", action: deny }',
    '  - { tool: mcp__files__read, match: { path: "*.env" }, action: deny }',
    '  - { tool: "read_*", match: { path: "*.env" }, action: deny }',
    '  - { tool: "read_*", match: { pth: "*.env" }, action: deny }',
    '  - { tool: "telep*", action: deny }',
  ].join('\n');
  const config = parseConfig(text, '/p/config.yaml');
  assert.deepEqual(permissionRuleProblems(config.permissions ?? [], catalog().entries()), [
    '/p/config.yaml:5: permissions[3].match.pth: no tool matching read_* has an argument "pth" (did you mean path?)',
    '/p/config.yaml:6: permissions[4].tool: no tool matches the pattern "telep*" (known tools: bash, read_file, structured_output)',
  ]);
});
