/**
 * Reads a Claude Code-style `export const meta = { ... }` header off a workflow file for
 * `loom workflow run` (when `--meta` is absent). The literal is converted statically from the
 * syntax tree; it must never be evaluated, and anything but a pure literal is `META_INVALID`.
 * The header's lines are blanked in the body so script line numbers still match the file.
 */
import type { Expression, Node, Property } from 'acorn';
import { WorkflowError } from './contract.js';
import {
  acornParser,
  leadingTokens,
  opensWithMetaExport,
  positionAt,
  sourceExcerpt,
} from './script-parse.js';

export interface MetaHeaderSplit {
  /** The header's literal as plain data; still to be checked with `validateMeta`. */
  meta: unknown;
  /** The file with the header (and any `#!` line) replaced by blank lines. */
  body: string;
}

const lineBreak = /\r\n|[\r\n\u2028\u2029]/;
const lineBreaks = new RegExp(lineBreak.source, 'g');

/** Undefined when the file does not open with `export const meta`; throws when it does badly. */
export function splitMetaHeader(source: string, file?: string): MetaHeaderSplit | undefined {
  if (!opensWithMetaExport(source)) return undefined;
  const fail = (offset: number, text: string) =>
    new WorkflowError(
      'META_INVALID',
      `${file === undefined ? '' : `${file}: `}${text} at ${positionAt(source, offset)}\n` +
        sourceExcerpt(source, offset),
    );
  const { parseExpressionAt, tokTypes } = acornParser();
  const [exportToken, , metaToken, equals] = leadingTokens(source, 4);
  if (exportToken === undefined || metaToken === undefined) return undefined;
  if (equals?.type !== tokTypes.eq) {
    throw fail(
      equals?.start ?? metaToken.end,
      'meta header must read `export const meta = <literal>`: no `=`',
    );
  }
  let expression: Expression;
  try {
    expression = parseExpressionAt(source, equals.end, {
      ecmaVersion: 'latest',
      allowAwaitOutsideFunction: true,
      preserveParens: true,
    });
  } catch (error) {
    const offset = (error as { pos?: unknown }).pos;
    const reason = error instanceof Error ? error.message.replace(/\s*\(\d+:\d+\)$/, '') : '';
    throw fail(
      typeof offset === 'number' ? offset : equals.end,
      `meta header does not parse: ${reason}`,
    );
  }
  const meta = literalValue(expression, (node, found) =>
    fail(node.start, `meta header must be a pure literal: found ${found}`),
  );
  const end = statementEnd(source, expression.end, fail);
  return { meta, body: blankHashBang(blankRange(source, exportToken.start, end)) };
}

type Failure = (node: Node, found: string) => WorkflowError;

function literalValue(node: Node, fail: Failure): unknown {
  const expression = node as Expression;
  switch (expression.type) {
    case 'Literal':
      if (expression.regex !== undefined) throw fail(node, 'a regular expression');
      if (expression.bigint !== undefined) throw fail(node, 'a bigint');
      return expression.value;
    case 'TemplateLiteral': {
      const [only] = expression.quasis;
      if (expression.expressions.length > 0 || typeof only?.value.cooked !== 'string') {
        throw fail(node, 'a template literal with a substitution');
      }
      return only.value.cooked;
    }
    case 'UnaryExpression': {
      const argument = expression.argument;
      if (
        expression.operator === '-' &&
        argument.type === 'Literal' &&
        typeof argument.value === 'number'
      ) {
        return -argument.value;
      }
      throw fail(node, `a unary \`${expression.operator}\` expression`);
    }
    case 'ArrayExpression':
      return expression.elements.map((element) => {
        if (element === null) throw fail(node, 'an array with a hole (an empty slot)');
        if (element.type === 'SpreadElement') throw fail(element, 'a spread');
        return literalValue(element, fail);
      });
    case 'ObjectExpression': {
      const copy = {};
      for (const property of expression.properties) {
        if (property.type === 'SpreadElement') throw fail(property, 'a spread');
        const key = propertyKey(property, fail);
        if (Object.hasOwn(copy, key))
          throw fail(property, `a duplicate key ${JSON.stringify(key)}`);
        Object.defineProperty(copy, key, {
          value: literalValue(property.value, fail),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    case 'ParenthesizedExpression':
      return literalValue(expression.expression, fail);
    case 'Identifier':
      throw fail(node, `the identifier \`${expression.name}\``);
    default:
      throw fail(node, foundNames[expression.type] ?? `a ${expression.type}`);
  }
}

function propertyKey(property: Property, fail: Failure): string {
  if (property.computed) throw fail(property, 'a computed key');
  if (property.kind !== 'init') throw fail(property, `a ${property.kind}ter`);
  if (property.method) throw fail(property, 'a method');
  if (property.shorthand) throw fail(property, 'a shorthand property');
  const key = property.key;
  if (key.type === 'Identifier') return key.name;
  if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) {
    return String(key.value);
  }
  throw fail(key, 'a key that is not a name, string or number');
}

const foundNames: Partial<Record<string, string>> = {
  CallExpression: 'a function call',
  NewExpression: 'a `new` expression',
  MemberExpression: 'a member access',
  ChainExpression: 'an optional chain',
  BinaryExpression: 'a binary expression',
  LogicalExpression: 'a logical expression',
  ConditionalExpression: 'a conditional expression',
  AssignmentExpression: 'an assignment',
  SequenceExpression: 'a comma expression',
  FunctionExpression: 'a function',
  ArrowFunctionExpression: 'a function',
  ClassExpression: 'a class',
  TaggedTemplateExpression: 'a tagged template',
  AwaitExpression: 'an await expression',
  UpdateExpression: 'an update expression',
  ThisExpression: '`this`',
  ImportExpression: 'an import',
  MetaProperty: 'a meta property',
};

/** After the literal: an optional `;`, then a line break or the end of the file. */
function statementEnd(
  source: string,
  literalEnd: number,
  fail: (offset: number, text: string) => WorkflowError,
): number {
  const { tokTypes } = acornParser();
  const [next] = leadingTokens(source.slice(literalEnd), 1);
  if (next?.type === tokTypes.semi) return literalEnd + next.end;
  const gapLength = next?.start ?? /^\s*/.exec(source.slice(literalEnd))?.[0].length ?? 0;
  if (
    next?.type === tokTypes.eof ||
    lineBreak.test(source.slice(literalEnd, literalEnd + gapLength))
  ) {
    return literalEnd;
  }
  throw fail(literalEnd + gapLength, 'meta header must end after its literal');
}

/** Replaces `[start, end)` by its line breaks, padding so text after it keeps its column. */
function blankRange(source: string, start: number, end: number): string {
  const removed = source.slice(start, end);
  const breaks = removed.match(lineBreaks) ?? [];
  const rest = source.slice(end);
  const restOfLine = rest.split(lineBreak)[0] ?? '';
  let lastLineStart = start;
  for (const match of removed.matchAll(lineBreaks)) {
    lastLineStart = start + match.index + match[0].length;
  }
  const padding = restOfLine.trim() === '' ? '' : ' '.repeat(end - lastLineStart);
  return source.slice(0, start) + breaks.join('') + padding + rest;
}

function blankHashBang(source: string): string {
  if (!source.startsWith('#!')) return source;
  const lineEnd = source.search(lineBreaks);
  return lineEnd === -1 ? '' : source.slice(lineEnd);
}
