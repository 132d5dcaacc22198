/**
 * A form elicitation's schema as questions (one per field, headed by its name) and the answers
 * back as the form's content, each checked against its field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QuestionAnswer } from '../../src/interaction/user-questions.js';
import {
  elicitationContent,
  elicitationForm,
  type Form,
  LEAVE_EMPTY,
} from '../../src/mcp/elicitation.js';
import { samplingMessages } from '../../src/mcp/sampling.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Your name' },
    agree: { type: 'boolean' },
    age: { type: 'integer', minimum: 1, maximum: 120 },
    ratio: { type: 'number', default: 0.5 },
    mail: { type: 'string', format: 'email' },
    color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h2' }] },
    tools: { type: 'array', items: { type: 'string', enum: ['saw', 'drill'] }, maxItems: 1 },
  },
  required: ['name', 'agree'],
};

function form(): Form {
  const made = elicitationForm('srv', { message: 'Tell me', requestedSchema: schema });
  assert.ok(typeof made !== 'string', String(made));
  return made;
}

function answer(made: Form, key: string, labels: string[], text?: string): QuestionAnswer {
  const question = made.questions.find((item) => item.header === key)?.question ?? '';
  return { question, labels, ...(text !== undefined ? { text } : {}) };
}

test('each field is a question headed by its name; the first says which server asks', () => {
  const made = form();
  assert.deepEqual(
    made.questions.map((question) => question.header),
    ['name', 'agree', 'age', 'ratio', 'mail', 'color', 'hero', 'tools'],
  );
  const [first, agree, age, ratio, mail, color, hero, tools] = made.questions;
  assert.equal(first?.question, 'MCP server srv asks: Tell me\nName: Your name');
  assert.deepEqual(first?.options, []);
  assert.deepEqual(
    agree?.options.map((option) => option.label),
    ['yes', 'no'],
  );
  assert.equal(age?.question, 'age (a whole number, 1 to 120)');
  assert.deepEqual(
    age?.options.map((option) => option.label),
    [LEAVE_EMPTY],
  );
  assert.deepEqual(ratio?.options[0], { label: '0.5', description: 'the default' });
  assert.equal(mail?.question, 'mail (an email address)');
  assert.deepEqual(color?.options.slice(0, 2), [
    { label: 'Red', description: 'r' },
    { label: 'Green', description: 'g' },
  ]);
  assert.deepEqual(
    hero?.options.map((option) => option.label),
    ['Superman', 'h2', LEAVE_EMPTY],
  );
  assert.equal(tools?.multiSelect, true);
});

test('answers become typed content; left-empty optional fields are left out', () => {
  const made = form();
  const content = elicitationContent(made, [
    answer(made, 'name', [], 'Ada'),
    answer(made, 'agree', ['yes']),
    answer(made, 'age', [], '36'),
    answer(made, 'ratio', ['0.5']),
    answer(made, 'mail', [LEAVE_EMPTY]),
    answer(made, 'color', ['Green']),
    answer(made, 'hero', [], 'superman'),
    answer(made, 'tools', ['drill']),
  ]);
  assert.deepEqual(content, {
    content: {
      name: 'Ada',
      agree: true,
      age: 36,
      ratio: 0.5,
      color: 'g',
      hero: 'h1',
      tools: ['drill'],
    },
  });
});

test('an answer that does not fit its field is a problem naming the field', () => {
  const made = form();
  const base = [answer(made, 'name', [], 'Ada'), answer(made, 'agree', ['no'])];
  const problem = (extra: QuestionAnswer[]) => {
    const outcome = elicitationContent(made, [...base, ...extra]);
    return 'problem' in outcome ? outcome.problem : 'none';
  };
  assert.match(problem([answer(made, 'age', [], '200')]), /^age must be at most 120/);
  assert.match(problem([answer(made, 'age', [], '3.5')]), /^age must be a whole number/);
  assert.match(problem([answer(made, 'mail', [], 'nope')]), /^mail must be an email address/);
  assert.match(problem([answer(made, 'color', [], 'Blue')]), /^color must be one of Red, Green/);
  assert.match(problem([answer(made, 'tools', ['saw', 'drill'])]), /^tools must be at most 1/);
  const missing = elicitationContent(made, [answer(made, 'agree', ['no'])]);
  assert.deepEqual(missing, { problem: 'name is required' });
});

test('a schema a form cannot ask is refused with the field named', () => {
  const nested = elicitationForm('srv', {
    message: 'x',
    requestedSchema: { type: 'object', properties: { where: { type: 'object' } } },
  });
  assert.equal(nested, 'field where has type "object", which a form cannot ask');
  assert.equal(
    elicitationForm('srv', { message: 'x', requestedSchema: { type: 'object' } }),
    'the form has no fields',
  );
});

test("a sampling request's messages: text kept, images described, never their bytes", () => {
  const messages = samplingMessages({
    maxTokens: 10,
    messages: [
      { role: 'user', content: { type: 'text', text: 'hello' } },
      { role: 'assistant', content: { type: 'text', text: 'hi' } },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      },
    ],
  });
  assert.deepEqual(messages, [
    { role: 'user', content: 'hello' },
    { role: 'assistant', text: 'hi', toolCalls: [] },
    { role: 'user', content: 'look\n[image: image/png, 3 bytes]' },
  ]);
});
