/**
 * Turns a JSON Schema into the TypeScript type the generated tool SDK shows the model. It reads
 * the schema only: it must never mutate it and never throw; whatever it cannot express (an
 * unknown keyword, a remote `$ref`, a cycle, a schema too deep or too large) becomes `unknown`.
 * Output is deterministic: property order is the schema's own.
 */
import { commentSafe, docComment } from './doc-comment.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Schemas nested deeper than this render as `unknown` (also bounds the recursion). */
const MAX_DEPTH = 32;
/** Schema nodes rendered for one root; past it the rest is `unknown`. */
const MAX_NODES = 2000;
/** `$ref`s expanded for one root; past it a `$ref` is `unknown` (bounds a shared-ref blow-up). */
const MAX_EXPANSIONS = 100;
/** Keywords that make a schema without `type` an object or an array schema. */
const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems'];
const MAX_LITERAL_DEPTH = 8;
const MAX_DEFAULT_LENGTH = 200;

/** How tightly the text binds, to know where parentheses are needed. */
type Binding = 'atom' | 'intersection' | 'union';

interface Rendered {
  text: string;
  binding: Binding;
  /** The type is `unknown` (maybe with a comment): absorbs a union, vanishes from an intersection. */
  unknown?: true;
  never?: true;
}

interface Walk {
  root: unknown;
  /** `$ref`s being expanded on the current path. */
  expanding: string[];
  /** Schema objects on the current path (a schema object that contains itself). */
  ancestors: Set<object>;
  depth: number;
  nodesLeft: number;
  expansionsLeft: number;
}

const UNKNOWN: Rendered = { text: 'unknown', binding: 'atom', unknown: true };
const NEVER: Rendered = { text: 'never', binding: 'atom', never: true };

/**
 * The TypeScript type of `schema`. `indent` is the indentation of the line the type starts on;
 * an object type's members are indented one level (two spaces) deeper. Local `$ref`s resolve
 * against `schema` itself.
 */
export function schemaType(schema: unknown, indent = ''): string {
  return render(schema, newWalk(schema), indent).text;
}

/** An object key or method name as TypeScript spells it: bare when an identifier, else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function newWalk(root: unknown): Walk {
  return {
    root,
    expanding: [],
    ancestors: new Set(),
    depth: 0,
    nodesLeft: MAX_NODES,
    expansionsLeft: MAX_EXPANSIONS,
  };
}

function render(schema: unknown, walk: Walk, indent: string): Rendered {
  if (schema === true) return UNKNOWN;
  if (schema === false) return NEVER;
  if (!isRecord(schema)) return UNKNOWN;
  if (walk.ancestors.has(schema)) return commentedUnknown('recursive');
  if (walk.depth >= MAX_DEPTH) return commentedUnknown('nested too deep');
  if (walk.nodesLeft <= 0) return commentedUnknown('schema too large');
  walk.nodesLeft -= 1;
  walk.depth += 1;
  walk.ancestors.add(schema);
  try {
    return renderSchema(schema, walk, indent);
  } catch {
    return UNKNOWN;
  } finally {
    walk.ancestors.delete(schema);
    walk.depth -= 1;
  }
}

function renderSchema(schema: Record<string, unknown>, walk: Walk, indent: string): Rendered {
  const parts: Rendered[] = [];
  if (Object.hasOwn(schema, 'const')) parts.push(literal(schema.const, 0));
  else if (Array.isArray(schema.enum))
    parts.push(union(schema.enum.map((value) => literal(value, 0))));
  else parts.push(keywordType(schema, walk, indent));
  if (typeof schema.$ref === 'string') parts.push(referencedType(schema.$ref, walk, indent));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members))
      parts.push(union(members.map((member) => render(member, walk, indent))));
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) parts.push(render(member, walk, indent));
  }
  const type = intersection(parts);
  return schema.nullable === true ? union([type, atom('null')]) : type;
}

function keywordType(schema: Record<string, unknown>, walk: Walk, indent: string): Rendered {
  const types =
    typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.length > 0) return union(types.map((type) => typeNamed(type, schema, walk, indent)));
  if (OBJECT_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) {
    return objectType(schema, walk, indent);
  }
  if (ARRAY_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) {
    return arrayType(schema, walk, indent);
  }
  return UNKNOWN;
}

function typeNamed(
  type: unknown,
  schema: Record<string, unknown>,
  walk: Walk,
  indent: string,
): Rendered {
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
    case 'number':
      return atom(type);
    case 'integer':
      return atom('number');
    case 'array':
      return arrayType(schema, walk, indent);
    case 'object':
      return objectType(schema, walk, indent);
    default:
      return UNKNOWN;
  }
}

function objectType(schema: Record<string, unknown>, walk: Walk, indent: string): Rendered {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required)
      ? schema.required.filter((name) => typeof name === 'string')
      : [],
  );
  const inner = `${indent}  `;
  const members: string[] = [];
  for (const [name, propertySchema] of Object.entries(properties)) {
    members.push(...docComment(propertyDoc(propertySchema, walk), inner));
    const optional = required.has(name) ? '' : '?';
    const type = render(propertySchema, walk, inner);
    members.push(`${inner}${propertyKey(name)}${optional}: ${type.text};`);
  }
  const index = indexType(schema, members.length > 0, walk, inner);
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) {
      members.push(`${inner}${propertyKey(name)}: ${index?.text ?? 'unknown'};`);
    }
  }
  if (members.length === 0) {
    const value = index ?? NEVER;
    return atom(`Record<string, ${value.text}>`);
  }
  const body: Rendered = atom(`{\n${members.join('\n')}\n${indent}}`);
  if (index === undefined) return body;
  if (index.unknown) {
    return atom(`{\n${members.join('\n')}\n${inner}[key: string]: ${index.text};\n${indent}}`);
  }
  // A typed index signature inside the body would have to admit every property's type.
  return intersection([body, atom(`Record<string, ${index.text}>`)]);
}

/** The type of keys beyond `properties`; undefined when there are none. */
function indexType(
  schema: Record<string, unknown>,
  hasProperties: boolean,
  walk: Walk,
  indent: string,
): Rendered | undefined {
  const types: Rendered[] = [];
  const patterns = isRecord(schema.patternProperties) ? schema.patternProperties : {};
  for (const patternSchema of Object.values(patterns))
    types.push(render(patternSchema, walk, indent));
  const additional = schema.additionalProperties;
  if (additional === undefined) {
    if (!hasProperties && types.length === 0) return UNKNOWN;
  } else if (additional !== false) {
    types.push(render(additional, walk, indent));
  }
  return types.length === 0 ? undefined : union(types);
}

function arrayType(schema: Record<string, unknown>, walk: Walk, indent: string): Rendered {
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  if (prefix === undefined) {
    if (rest === false) return atom('[]');
    return atom(`${parenthesised(render(rest ?? true, walk, indent), 'atom')}[]`);
  }
  const minimum = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const elements = prefix.map((item, position) => {
    const element = render(item, walk, indent);
    return position < minimum ? element.text : `${parenthesised(element, 'atom')}?`;
  });
  if (rest !== false) {
    elements.push(`...${parenthesised(render(rest ?? true, walk, indent), 'atom')}[]`);
  }
  return atom(`[${elements.join(', ')}]`);
}

function referencedType(pointer: string, walk: Walk, indent: string): Rendered {
  const target = resolveReference(pointer, walk.root);
  if (target === undefined) return commentedUnknown(`unresolved: ${pointer}`);
  const cycle =
    walk.expanding.includes(pointer) || (isRecord(target) && walk.ancestors.has(target));
  if (cycle) return commentedUnknown(`recursive: ${pointer}`);
  if (walk.expansionsLeft <= 0) return commentedUnknown(`not expanded: ${pointer}`);
  walk.expansionsLeft -= 1;
  walk.expanding.push(pointer);
  try {
    return render(target, walk, indent);
  } finally {
    walk.expanding.pop();
  }
}

/** A local JSON Pointer reference (`#`, `#/$defs/X`, `#/definitions/X`, …) into `root`. */
function resolveReference(pointer: string, root: unknown): unknown {
  if (pointer !== '#' && !pointer.startsWith('#/')) return undefined;
  let node = root;
  for (const encoded of pointer === '#' ? [] : pointer.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(encoded).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if ((!isRecord(node) && !Array.isArray(node)) || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** The doc comment text of a property: its description (or title), default and deprecation. */
function propertyDoc(schema: unknown, walk: Walk): string {
  if (!isRecord(schema)) return '';
  let annotated = schema;
  if (typeof schema.$ref === 'string' && !walk.expanding.includes(schema.$ref)) {
    const target = resolveReference(schema.$ref, walk.root);
    if (isRecord(target)) annotated = { ...target, ...schema };
  }
  const lines: string[] = [];
  const text = annotated.description ?? annotated.title;
  if (typeof text === 'string') lines.push(text);
  if (Object.hasOwn(annotated, 'default')) {
    const value = jsonText(annotated.default);
    if (value !== undefined) lines.push(`@default ${value}`);
  }
  if (annotated.deprecated === true) lines.push('@deprecated');
  return lines.join('\n');
}

function jsonText(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    if (typeof text !== 'string') return undefined;
    return text.length > MAX_DEFAULT_LENGTH ? `${text.slice(0, MAX_DEFAULT_LENGTH)}…` : text;
  } catch {
    return undefined;
  }
}

/** The literal type of a JSON value (`const`, an `enum` member). */
function literal(value: unknown, depth: number): Rendered {
  if (depth > MAX_LITERAL_DEPTH) return UNKNOWN;
  if (value === null) return atom('null');
  switch (typeof value) {
    case 'string':
      return atom(JSON.stringify(value));
    case 'boolean':
      return atom(String(value));
    case 'number':
      if (!Number.isFinite(value)) return atom('number');
      // `-1[]` is no array type; a negative literal is parenthesised like a union.
      return value < 0 ? { text: String(value), binding: 'union' } : atom(String(value));
    case 'object': {
      if (Array.isArray(value)) {
        return atom(`[${value.map((item) => literal(item, depth + 1).text).join(', ')}]`);
      }
      if (!isRecord(value)) return UNKNOWN;
      const entries = Object.entries(value);
      if (entries.length === 0) return atom('Record<string, never>');
      const members = entries.map(([key, item]) => {
        return `${propertyKey(key)}: ${literal(item, depth + 1).text}`;
      });
      return atom(`{ ${members.join('; ')} }`);
    }
    default:
      return UNKNOWN;
  }
}

function union(members: readonly Rendered[]): Rendered {
  const kept: Rendered[] = [];
  for (const member of members) {
    if (member.unknown) return member;
    if (member.never || kept.some((other) => other.text === member.text)) continue;
    kept.push(member);
  }
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0] as Rendered;
  return { text: kept.map((member) => member.text).join(' | '), binding: 'union' };
}

function intersection(members: readonly Rendered[]): Rendered {
  const kept: Rendered[] = [];
  for (const member of members) {
    if (member.never) return NEVER;
    if (member.unknown || kept.some((other) => other.text === member.text)) continue;
    kept.push(member);
  }
  if (kept.length === 0) return members.find((member) => member.text !== UNKNOWN.text) ?? UNKNOWN;
  if (kept.length === 1) return kept[0] as Rendered;
  const text = kept.map((member) => parenthesised(member, 'intersection')).join(' & ');
  return { text, binding: 'intersection' };
}

/** `rendered` in parentheses when it binds more loosely than the position `within` needs. */
function parenthesised(rendered: Rendered, within: Binding): string {
  const strength: Record<Binding, number> = { union: 0, intersection: 1, atom: 2 };
  return strength[rendered.binding] < strength[within] ? `(${rendered.text})` : rendered.text;
}

function commentedUnknown(note: string): Rendered {
  return { text: `unknown /* ${commentSafe(note)} */`, binding: 'atom', unknown: true };
}

function atom(text: string): Rendered {
  return { text, binding: 'atom' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
