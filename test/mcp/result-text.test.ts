import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64Size, resultText } from '../../src/mcp/result-text.js';

test('text stays text; images, audio and resources are described by MIME type and size', () => {
  assert.equal(base64Size('AAECAw=='), 4);
  assert.equal(base64Size('AAECAwQ='), 5);
  const output = resultText(
    {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAECAw==', mimeType: 'image/png' },
        { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'héllo' },
        },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAECAwQ=' } },
        {
          type: 'resource_link',
          uri: 'file:///c.pdf',
          name: 'c',
          mimeType: 'application/pdf',
          size: 2048,
        },
      ],
    },
    1000,
  );
  assert.equal(
    output,
    [
      'hello',
      '[image: image/png, 4 bytes]',
      '[audio: audio/wav, 1 byte]',
      '[resource file:///a.txt: text/plain, 6 bytes]',
      'héllo',
      '[resource file:///b.bin: unknown type, 5 bytes]',
      '[resource link file:///c.pdf (c): application/pdf, 2048 bytes]',
    ].join('\n'),
  );
});

test('an error result stays an error; structured content alone is shown as JSON; output is capped', () => {
  assert.deepEqual(resultText({ content: [{ type: 'text', text: 'no' }], isError: true }, 1000), {
    content: 'no',
    isError: true,
  });
  assert.equal(resultText({ content: [], structuredContent: { a: 1 } }, 1000), '{\n  "a": 1\n}');
  assert.equal(resultText({ content: [] }, 1000), '(the tool sent no content)');
  const capped = resultText({ content: [{ type: 'text', text: 'y'.repeat(5000) }] }, 1000);
  assert.ok(typeof capped === 'string' && capped.length < 1100);
  assert.match(String(capped), /… 4000 characters cut …/);
});

test('structured content comes as JSON beside the text unless the text already says it; annotations go to the details', () => {
  assert.equal(
    resultText(
      { content: [{ type: 'text', text: 'Sunny' }], structuredContent: { sky: 'clear', c: 21 } },
      1000,
    ),
    'Sunny\nstructured content:\n{\n  "sky": "clear",\n  "c": 21\n}',
  );
  assert.equal(
    resultText(
      { content: [{ type: 'text', text: '{"c": 21}' }], structuredContent: { c: 21 } },
      1000,
    ),
    '{"c": 21}',
  );
  assert.equal(
    resultText(
      { content: [{ type: 'text', text: 'a\nb' }], structuredContent: { content: 'a\nb' } },
      1000,
    ),
    'a\nb',
  );
  assert.deepEqual(
    resultText(
      {
        content: [
          { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.2 } },
          {
            type: 'resource_link',
            uri: 'demo://r/1',
            name: 'r1',
            title: 'The first',
            description: 'a resource',
            mimeType: 'text/plain',
          },
        ],
      },
      1000,
    ),
    {
      content: 'hi\n[resource link demo://r/1 (r1, titled The first): text/plain]: a resource',
      details: {
        annotations: [
          { block: 0, type: 'text', annotations: { audience: ['user'], priority: 0.2 } },
        ],
      },
    },
  );
});
