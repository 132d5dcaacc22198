import assert from 'node:assert/strict';
import { test } from 'node:test';
import ts from 'typescript';
import { schemaType } from '../../src/code-mode/schema-type.js';
import { type SdkTool, toolSdk } from '../../src/code-mode/tool-sdk.js';
import { generatedToolParameters } from '../../src/generated/tool-parameters.js';
import type { JsonSchema } from '../../src/llm/contract.js';
import { captureShape } from '../../src/subagent/structured-output/capture-instructions.js';
import { builtinTools } from '../../src/tools/index.js';

const tool = (name: string, parameters: JsonSchema, description = ''): SdkTool => ({
  name,
  description,
  parameters,
});

/** The `tools` member lines of an SDK, without its leading comment and the console declaration. */
function toolsBody(sdk: string): string {
  const start = sdk.indexOf('declare const tools: {\n') + 'declare const tools: {\n'.length;
  return sdk.slice(start, sdk.indexOf('\n};\n', start));
}

const libraryFiles = new Map<string, ts.SourceFile | undefined>();

/** Type-checks in-memory scripts (ES2022 library only, strict) and returns every diagnostic. */
function typeScriptProblems(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readLibrary = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion) => {
    const text = files[name];
    if (text !== undefined) return ts.createSourceFile(name, text, languageVersion, true);
    if (!libraryFiles.has(name)) libraryFiles.set(name, readLibrary(name, languageVersion));
    return libraryFiles.get(name);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in files || fileExists(name);
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file?.fileName ?? '';
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

test('required properties are plain, the others optional, in the order given', () => {
  const sdk = toolSdk([
    tool(
      'read_file',
      {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file to read.' },
          offset: { type: 'integer' },
          limit: { type: 'number' },
        },
        required: ['path'],
        additionalProperties: false,
      },
      'Reads a file.',
    ),
  ]);
  assert.equal(
    toolsBody(sdk),
    [
      '  /** Reads a file. */',
      '  read_file(args: {',
      '    /** The file to read. */',
      '    path: string;',
      '    offset?: number;',
      '    limit?: number;',
      '  }): Promise<string>;',
    ].join('\n'),
  );
  assert.match(sdk, /^\/\*\*\n \* The tools a run_code program can call/);
  assert.match(sdk, /rejects with an Error whose message is the tool's error text/);
  assert.match(sdk, /\ndeclare const console: \{\n {2}log\(\.\.\.values: unknown\[\]\): void;\n/);
  for (const method of ['info', 'warn', 'error']) assert.ok(sdk.includes(`  ${method}(...values`));
});

test('enums and consts become unions of quoted, escaped JSON literals', () => {
  assert.equal(
    schemaType({ type: 'string', enum: ['plain', 'say "hi"', 'back\\slash', 'line\nbreak'] }),
    '"plain" | "say \\"hi\\"" | "back\\\\slash" | "line\\nbreak"',
  );
  assert.equal(
    schemaType({ enum: [1, -2, 2.5, true, null, 'x', 1] }),
    '1 | -2 | 2.5 | true | null | "x"',
  );
  assert.equal(schemaType({ const: 'only' }), '"only"');
  assert.equal(
    schemaType({ const: { mode: 'a', 'b-c': [1, null] } }),
    '{ mode: "a"; "b-c": [1, null] }',
  );
  assert.equal(schemaType({ enum: [] }), 'never');
  assert.equal(schemaType({ type: 'array', items: { enum: ['a', 'b'] } }), '("a" | "b")[]');
  assert.equal(schemaType({ type: 'array', items: { const: -1 } }), '(-1)[]');
  assert.equal(schemaType({ type: ['string', 'null'] }), 'string | null');
  assert.equal(schemaType({ type: ['integer', 'number'] }), 'number');
  assert.equal(schemaType({ type: 'string', nullable: true }), 'string | null');
  assert.equal(schemaType({ type: 'boolean' }), 'boolean');
});

test('nested objects are indented one level deeper each, with their own docs', () => {
  const sdk = toolSdk([
    tool('todo', {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          description: 'The whole list.',
          items: {
            type: 'object',
            properties: {
              content: { type: 'string' },
              owner: {
                type: 'object',
                properties: { name: { type: 'string', description: 'Who.' } },
                required: ['name'],
              },
            },
            required: ['content'],
          },
        },
      },
      required: ['list'],
    }),
  ]);
  assert.equal(
    toolsBody(sdk),
    [
      '  todo(args: {',
      '    /** The whole list. */',
      '    list: {',
      '      content: string;',
      '      owner?: {',
      '        /** Who. */',
      '        name: string;',
      '      };',
      '    }[];',
      '  }): Promise<string>;',
    ].join('\n'),
  );
});

test('arrays: items, tuples from prefixItems or an items list, and no items at all', () => {
  assert.equal(schemaType({ type: 'array', items: { type: 'string' } }), 'string[]');
  assert.equal(schemaType({ type: 'array' }), 'unknown[]');
  assert.equal(schemaType({ type: 'array', items: false }), '[]');
  assert.equal(
    schemaType({ type: 'array', items: { type: ['string', 'number'] } }),
    '(string | number)[]',
  );
  assert.equal(
    schemaType({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
      minItems: 2,
    }),
    '[string, number]',
  );
  assert.equal(
    schemaType({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: ['number', 'null'] }],
      items: { type: 'boolean' },
      minItems: 1,
    }),
    '[string, (number | null)?, ...boolean[]]',
  );
  assert.equal(
    schemaType({ type: 'array', prefixItems: [{ type: 'string' }] }),
    '[string?, ...unknown[]]',
  );
  assert.equal(
    schemaType({ type: 'array', items: [{ type: 'string' }], additionalItems: false, minItems: 1 }),
    '[string]',
  );
  assert.equal(schemaType({ type: 'array', items: { type: 'array' } }), 'unknown[][]');
});

test('objects: index signatures from additionalProperties, records, required-only names', () => {
  assert.equal(schemaType({ type: 'object' }), 'Record<string, unknown>');
  assert.equal(
    schemaType({ type: 'object', additionalProperties: false }),
    'Record<string, never>',
  );
  assert.equal(
    schemaType({ type: 'object', additionalProperties: { type: 'number' } }),
    'Record<string, number>',
  );
  assert.equal(
    schemaType({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: true,
    }),
    '{\n  a?: string;\n  [key: string]: unknown;\n}',
  );
  assert.equal(
    schemaType({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: { type: 'number' },
    }),
    '{\n  a?: string;\n} & Record<string, number>',
  );
  assert.equal(
    schemaType({ type: 'object', patternProperties: { '^x-': { type: 'string' } } }),
    'Record<string, string>',
  );
  assert.equal(
    schemaType({ type: 'object', properties: {}, required: ['id'], additionalProperties: false }),
    '{\n  id: unknown;\n}',
  );
});

test('anyOf and oneOf are unions, allOf an intersection, parenthesised where needed', () => {
  assert.equal(
    schemaType({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'string' }] }),
    'string | number',
  );
  assert.equal(schemaType({ oneOf: [{ const: 'a' }, { const: 'b' }] }), '"a" | "b"');
  assert.equal(
    schemaType({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { anyOf: [{ type: 'object', properties: { b: { type: 'number' } } }, { type: 'null' }] },
      ],
    }),
    '{\n  a: string;\n} & ({\n  b?: number;\n} | null)',
  );
  assert.equal(schemaType({ anyOf: [{ type: 'string' }, {}] }), 'unknown');
  assert.equal(schemaType({ allOf: [{ type: 'string' }, {}] }), 'string');
  assert.equal(
    schemaType({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }),
    '(string | number)[]',
  );
});

test('local $refs resolve inline; a cycle or a remote $ref is unknown with a comment', () => {
  const schema: JsonSchema = {
    type: 'object',
    $defs: {
      Point: {
        type: 'object',
        description: 'A point.',
        properties: { x: { type: 'number' }, y: { type: 'number' } },
        required: ['x', 'y'],
      },
      Node: {
        type: 'object',
        properties: {
          value: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/Node' } },
        },
        required: ['value'],
      },
    },
    definitions: { 'a/b': { type: 'boolean' } },
    properties: {
      at: { $ref: '#/$defs/Point' },
      tree: { $ref: '#/$defs/Node' },
      flag: { $ref: '#/definitions/a~1b' },
      remote: { $ref: 'https://example.com/schema.json' },
      missing: { $ref: '#/$defs/Nowhere' },
      self: { $ref: '#' },
    },
    required: ['at'],
  };
  assert.equal(
    schemaType(schema),
    [
      '{',
      '  /** A point. */',
      '  at: {',
      '    x: number;',
      '    y: number;',
      '  };',
      '  tree?: {',
      '    value: string;',
      '    children?: unknown /* recursive: #/$defs/Node */[];',
      '  };',
      '  flag?: boolean;',
      '  remote?: unknown /* unresolved: https://example.com/schema.json */;',
      '  missing?: unknown /* unresolved: #/$defs/Nowhere */;',
      '  self?: unknown /* recursive: # */;',
      '}',
    ].join('\n'),
  );
});

test('descriptions become JSDoc: escaped, multi-line, defaults and deprecation noted', () => {
  const sdk = toolSdk([
    tool(
      'glob',
      {
        type: 'object',
        properties: {
          pattern: {
            type: 'string',
            description: 'Use "**/*.ts" for every folder.\r\n\n\n  Second paragraph.  \n',
          },
          limit: { type: 'integer', default: 200, deprecated: true },
          mode: { title: 'The mode', enum: ['a'], default: 'a' },
        },
      },
      '\nFinds files.\n\nEnds the comment? */ No.\n',
    ),
  ]);
  assert.equal(
    toolsBody(sdk),
    [
      '  /**',
      '   * Finds files.',
      '   *',
      '   * Ends the comment? *\\/ No.',
      '   */',
      '  glob(args: {',
      '    /**',
      '     * Use "**\\/*.ts" for every folder.',
      '     *',
      '     *   Second paragraph.',
      '     */',
      '    pattern?: string;',
      '    /**',
      '     * @default 200',
      '     * @deprecated',
      '     */',
      '    limit?: number;',
      '    /**',
      '     * The mode',
      '     * @default "a"',
      '     */',
      '    mode?: "a";',
      '  }): Promise<string>;',
    ].join('\n'),
  );
});

test('property and tool names that are not identifiers are quoted', () => {
  const sdk = toolSdk([
    tool('mcp__srv__tool-x', {
      type: 'object',
      properties: {
        'content-type': { type: 'string' },
        '2x': { type: 'number' },
        'say "x"': { type: 'boolean' },
        $ok_1: { type: 'null' },
      },
      required: ['content-type'],
    }),
    tool('plain_name', { type: 'object', properties: {} }),
  ]);
  assert.equal(
    toolsBody(sdk),
    [
      '  "mcp__srv__tool-x"(args: {',
      '    "content-type": string;',
      '    "2x"?: number;',
      '    "say \\"x\\""?: boolean;',
      '    $ok_1?: null;',
      '  }): Promise<string>;',
      '  plain_name(args: Record<string, unknown>): Promise<string>;',
    ].join('\n'),
  );
});

/** Schemas nobody should send, each of which must still render (as `unknown` where needed). */
function strangeSchemas(): JsonSchema[] {
  const cyclic: JsonSchema = { type: 'object', properties: {} };
  (cyclic.properties as JsonSchema).self = cyclic;
  let deep: JsonSchema = { type: 'string' };
  for (let level = 0; level < 2000; level += 1) {
    deep = { type: 'object', properties: { next: deep } };
  }
  const defs: JsonSchema = { leaf: { type: 'string' } };
  for (let level = 1; level <= 40; level += 1) {
    const previous = { $ref: `#/$defs/d${level - 1}` };
    defs[`d${level}`] = { type: 'array', prefixItems: [previous, previous] };
  }
  defs.d0 = { $ref: '#/$defs/leaf' };
  const throwing = {
    type: 'object',
    get properties(): never {
      throw new Error('getter');
    },
  };
  return [
    cyclic,
    deep,
    { type: 'object', $defs: defs, properties: { blowup: { $ref: '#/$defs/d40' } } },
    throwing,
    { type: 42, enum: 'x', properties: [], required: 'a' },
    { type: 'object', properties: { a: null, b: 7, c: 'string', d: [] }, required: [1, null] },
    { type: 'array', prefixItems: 'no', items: null, minItems: 'two' },
    { type: [], anyOf: 'no', allOf: [null], $ref: 5 },
    { type: 'object', additionalProperties: { $ref: '#/%ZZ' } },
    { type: 'unheard-of', format: 'binary' },
    { const: { ['__proto__']: 1, nested: [[[[[[[[[[1]]]]]]]]]] } },
    { enum: [Number.NaN, Number.POSITIVE_INFINITY, undefined, () => 1, 10n] },
  ] as JsonSchema[];
}

test('a strange schema never throws, falls back to unknown, and the input is not changed', () => {
  const schemas = strangeSchemas();
  for (const schema of schemas) {
    assert.doesNotThrow(() => toolSdk([tool('odd', schema)]));
  }
  assert.equal(schemaType({ type: 'unheard-of' }), 'unknown');
  assert.equal(schemaType(null), 'unknown');
  assert.equal(schemaType(false), 'never');
  assert.equal(schemaType({ type: 42 }), 'unknown');
  const blowup = toolSdk([tool('odd', schemas[2] as JsonSchema)]);
  assert.ok(blowup.length < 10_000, `the SDK is ${blowup.length} characters`);
  assert.match(blowup, /unknown \/\* not expanded: #\/\$defs\/d\d+ \*\//);
  assert.match(
    toolSdk([tool('odd', schemas[0] as JsonSchema)]),
    /self\?: unknown \/\* recursive \*\/;/,
  );
  assert.match(
    toolSdk([tool('odd', schemas[1] as JsonSchema)]),
    /next\?: unknown \/\* nested too deep \*\/;/,
  );

  const frozen = deepFreeze(structuredClone(realisticSchema()));
  const copy = structuredClone(frozen);
  toolSdk([tool('real', frozen, 'A real one.')]);
  assert.deepEqual(frozen, copy);
});

test('the same tools give the same text, tools in the order given', () => {
  const tools = [
    tool('b_tool', realisticSchema(), 'B.'),
    tool('a_tool', {
      type: 'object',
      properties: { z: { type: 'string' }, a: { type: 'string' } },
    }),
  ];
  const first = toolSdk(tools);
  assert.equal(toolSdk(structuredClone(tools)), first);
  assert.ok(first.indexOf('b_tool(') < first.indexOf('a_tool('));
  assert.ok(first.indexOf('z?: string') < first.indexOf('a?: string'));
  assert.doesNotMatch(first, /\n\s*\n/, 'no blank lines');
});

function realisticSchema(): JsonSchema {
  return {
    type: 'object',
    $defs: { Tag: { type: 'string', enum: ['bug', 'feature'] } },
    properties: {
      title: { type: 'string', description: 'The title.' },
      tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
      meta: { type: 'object', additionalProperties: { type: 'string' } },
      range: {
        type: 'array',
        prefixItems: [{ type: 'integer' }, { type: 'integer' }],
        minItems: 2,
      },
    },
    required: ['title'],
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

test("the SDK of Loom's real tools, and of every schema shape here, is valid TypeScript", () => {
  const workspace = { root: '/nonexistent-workspace', extraRoots: [] };
  const builtins = builtinTools({ workspace, background: true });
  const generated = Object.entries(generatedToolParameters).map(([name, parameters]) =>
    tool(name, parameters, `The ${name} tool.`),
  );
  const capture = [
    tool(
      'structured_output',
      captureShape({ type: 'array', items: { type: 'string' } }).parameters,
    ),
    tool('structured_output_object', captureShape(realisticSchema()).parameters),
  ];
  const strange = strangeSchemas().map((schema, index) => tool(`strange_${index}`, schema));
  const sdk = toolSdk([...builtins, ...generated, ...capture, ...strange]);
  assert.ok(sdk.includes('  read_file(args: {\n'));
  assert.ok(sdk.includes('  "bash/foreground"(args: {\n'));

  const program = [
    'async function main(): Promise<void> {',
    "  const text: string = await tools.read_file({ path: 'a.txt', offset: 2 });",
    "  const found = await tools.grep({ pattern: 'x', ignore_case: true });",
    "  const [one, two] = await Promise.all([tools.glob({ pattern: '**/*.ts' }), tools.bash({ command: 'ls' })]);",
    "  await tools.structured_output({ value: ['answer'] });",
    "  try { await tools.edit_file({ path: 'a', old_string: 'b', new_string: 'c' }); } catch (error) { console.error(error); }",
    '  console.log(text, found, one, two, JSON.parse(found));',
    '  console.info(1); console.warn(2);',
    '}',
    'main();',
  ].join('\n');
  assert.deepEqual(typeScriptProblems({ '/sdk/tools.ts': sdk, '/sdk/program.ts': program }), []);

  // The check does type-check: a wrong argument is reported.
  const wrong = "tools.read_file({ file: 'a.txt' });\ntools.no_such_tool({});";
  const problems = typeScriptProblems({ '/sdk/tools.ts': sdk, '/sdk/program.ts': wrong });
  assert.equal(problems.length, 2, problems.join('\n'));
});
