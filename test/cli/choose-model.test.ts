import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/base/errors.js';
import { chooseModel } from '../../src/cli/choose-model.js';

const key = { DEEPSEEK_API_KEY: 'sk-test' };

test('chooseModel: --model, then $LOOM_MODEL, then config, then the DeepSeek key', () => {
  const all = { flag: 'scripted:flag.json', configModel: 'scripted:config.json' };
  const env = { ...key, LOOM_MODEL: 'scripted:env.json' };
  assert.deepEqual(chooseModel({ ...all, env }), { spec: 'scripted:flag.json', source: 'flag' });
  assert.deepEqual(chooseModel({ configModel: all.configModel, env }), {
    spec: 'scripted:env.json',
    source: 'environment',
  });
  assert.deepEqual(chooseModel({ configModel: all.configModel, env: key }), {
    spec: 'scripted:config.json',
    source: 'config',
  });
  assert.deepEqual(chooseModel({ env: key }), {
    spec: 'deepseek:deepseek-chat',
    source: 'deepseek-key',
  });
});

test('chooseModel: an empty or blank $LOOM_MODEL or DeepSeek key counts as unset', () => {
  assert.equal(
    chooseModel({ configModel: 'scripted:c.json', env: { ...key, LOOM_MODEL: '' } }).source,
    'config',
  );
  assert.equal(chooseModel({ env: { ...key, LOOM_MODEL: ' \t' } }).source, 'deepseek-key');
  assert.throws(
    () => chooseModel({ env: { LOOM_MODEL: '', DEEPSEEK_API_KEY: '  ' } }),
    /no model is configured/,
  );
});

test('chooseModel: an empty --model is not absent; it is passed on to be rejected', () => {
  assert.deepEqual(chooseModel({ flag: '', env: { LOOM_MODEL: 'scripted:env.json' } }), {
    spec: '',
    source: 'flag',
  });
});

test('chooseModel: with nothing set the error names all four ways and the offline hint', () => {
  assert.throws(
    () => chooseModel({ env: {} }),
    (error: unknown) => {
      assert.ok(error instanceof UserError);
      assert.equal(error.code, 'MODEL_SPEC');
      for (const way of ['--model', 'LOOM_MODEL', 'model:', 'DEEPSEEK_API_KEY', 'scripted:FILE'])
        assert.ok(error.message.includes(way), `names ${way}: ${error.message}`);
      return true;
    },
  );
});
