/**
 * Built-in tools start without zod: the JSON Schema of every declaration a default runtime makes
 * comes from the generated table (src/generated/tool-parameters.ts), which must be up to date and
 * equal to a fresh conversion; options that change a schema get their own variant or none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  converted,
  currentToolParameters,
  variantTable,
} from '../../scripts/generate-tool-parameters.js';
import { buildRuntime } from '../../src/cli/build-runtime.js';
import { builtinDeclarationOf, defineBuiltinTool } from '../../src/core/builtin-tool.js';
import type { DeclaredTool } from '../../src/core/tool-catalog.js';
import { generatedToolParameters } from '../../src/generated/tool-parameters.js';
import { bashTool } from '../../src/tools/bash.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The tools a runtime declares when built with `config` as its config.yaml. */
function declaredTools(config = ''): DeclaredTool[] {
  const folder = mkdtempSync(join(tmpdir(), 'loom-builtin-tool-'));
  folders.push(folder);
  const model = join(folder, 'model.json');
  writeFileSync(model, JSON.stringify({ rules: [], default: { reply: 'ok' } }));
  writeFileSync(join(folder, 'config.yaml'), config);
  const setup = buildRuntime({ cwd: folder, home: folder, model: `scripted:${model}` });
  const tools = setup.runtime.toolCatalog.tools();
  for (const layer of [setup.workflow, setup.subagents, setup.jobs, setup.goals, setup.plan]) {
    layer.dispose();
  }
  void setup.codeMode.dispose();
  return tools;
}

const workspace = { root: tmpdir(), extraRoots: [] };

test('the generated tool parameters are those the declarations make now (npm run generate:tools)', () => {
  assert.deepEqual(currentToolParameters(), generatedToolParameters);
});

test('every built-in tool of a default runtime takes its generated schema, equal to a fresh conversion', () => {
  for (const [config, subagentVariant] of [
    ['', 'subagent'],
    ['subagents:\n  provider: fork\n', 'subagent/fork'],
  ] as const) {
    const tools = declaredTools(config);
    const others = tools.filter((tool) => builtinDeclarationOf(tool) === undefined);
    // Tools with a hand-written JSON Schema; any other must be declared with defineBuiltinTool
    // (one made with defineTool would load zod at every start).
    assert.deepEqual(
      others.map((tool) => tool.name).sort(),
      ['load_tools', 'run_code', 'structured_output', 'workflow'],
      'a tool of a default runtime is not declared with defineBuiltinTool',
    );
    const builtins = tools.filter((tool) => builtinDeclarationOf(tool) !== undefined);
    assert.ok(builtins.length >= 20, `only ${builtins.length} built-in tools declared`);
    for (const tool of builtins) {
      const declaration = builtinDeclarationOf(tool);
      assert.ok(declaration);
      const { variant } = declaration;
      assert.ok(variant !== null, `${tool.name} has no variant, so a start converts it`);
      assert.ok(variant in generatedToolParameters, `variant ${variant} is not generated`);
      // The very object of the table: nothing was converted when the tool was made.
      assert.equal(tool.parameters, generatedToolParameters[variant], tool.name);
      assert.deepEqual(tool.parameters, converted(declaration), tool.name);
    }
    const subagent = builtins.find((tool) => tool.name === 'subagent');
    assert.equal(subagent && builtinDeclarationOf(subagent)?.variant, subagentVariant);
  }
});

test('bash names its variant by its options and converts a non-default timeout when made', () => {
  const foreground = bashTool({ workspace });
  assert.equal(builtinDeclarationOf(foreground)?.variant, 'bash/foreground');
  assert.equal(foreground.parameters, generatedToolParameters['bash/foreground']);
  const background = bashTool({ workspace, background: true });
  assert.equal(builtinDeclarationOf(background)?.variant, 'bash');

  const capped = bashTool({ workspace, maxTimeoutMs: 7000, background: true });
  assert.equal(builtinDeclarationOf(capped)?.variant, null);
  const timeout = (capped.parameters.properties as Record<string, Record<string, unknown>>)
    .timeout_ms;
  assert.equal(timeout?.maximum, 7000);
  // The cap is the schema's maximum (above); the description names the default alone.
  assert.equal(timeout?.description, 'Time limit in milliseconds; default 120000.');

  const slow = bashTool({ workspace, defaultTimeoutMs: 5000 });
  assert.equal(builtinDeclarationOf(slow)?.variant, null);
  const slowTimeout = (slow.parameters.properties as Record<string, Record<string, unknown>>)
    .timeout_ms;
  assert.equal(slowTimeout?.description, 'Time limit in milliseconds; default 5000.');
});

test('tools of one variant share its generated schema, frozen, so one cannot change another', () => {
  const first = bashTool({ workspace });
  const second = bashTool({ workspace });
  assert.equal(first.parameters, second.parameters);
  const properties = first.parameters.properties as Record<string, Record<string, unknown>>;
  assert.throws(() => {
    properties.command = { type: 'number' };
  }, TypeError);
  assert.throws(() => {
    (properties.timeout_ms as Record<string, unknown>).maximum = 1;
  }, TypeError);
  assert.equal((second.parameters.properties as typeof properties).timeout_ms?.maximum, 600000);
});

test('the generator refuses one variant name declared with two schemas', () => {
  const declare = (description: string) =>
    defineBuiltinTool({
      name: 'clash',
      description: 'a test tool',
      variant: 'test/clash',
      arguments: (zod) => zod.strictObject({ value: zod.string().describe(description) }),
      execute: () => 'ok',
    });
  const same = variantTable([declare('one'), declare('one')]);
  assert.deepEqual(Object.keys(same), ['test/clash']);
  assert.throws(
    () => variantTable([declare('one'), declare('two')]),
    /tool variant test\/clash is declared with two schemas/,
  );
});
