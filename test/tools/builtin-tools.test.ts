import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinTools } from '../../src/tools/index.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

test('builtinTools returns the six tools, each field described for the model', () => {
  const tools = builtinTools({ workspace: temporaryWorkspace() });
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash'],
  );
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, tool.name);
    assert.equal(tool.parameters.type, 'object');
    assert.equal(tool.parameters.additionalProperties, false, tool.name);
    const properties = tool.parameters.properties as Record<string, { description?: string }>;
    for (const [field, property] of Object.entries(properties)) {
      assert.ok(property.description, `${tool.name}.${field} has a description`);
    }
  }
  const safe = tools.filter((tool) => tool.concurrencySafe).map((tool) => tool.name);
  assert.deepEqual(safe, ['read_file', 'glob', 'grep']);
});

test('bash options reach the bash tool', async () => {
  const tools = builtinTools({
    workspace: temporaryWorkspace(),
    bashTimeoutMs: 150,
    outputLimit: 4,
  });
  const bash = tools.find((tool) => tool.name === 'bash');
  assert.ok(bash);
  const output = await bash.execute({ command: 'echo 123456789; sleep 30' }, fakeExecution());
  assert.equal(contentOf(output), '12\n… 6 characters cut …\n9\n[killed: timeout after 150 ms]');
});
