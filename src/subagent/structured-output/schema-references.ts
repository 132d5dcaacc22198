/**
 * Checks the `$ref`s of an output schema: each must point inside the schema itself (`#`, a JSON
 * pointer `#/$defs/NAME`, or a `$anchor`), because a route sends one schema and can fetch no
 * other, and each must point at something. A schema with an `$id` resolves references against
 * it; those are left to ajv's compile, which reports what it cannot resolve. Never throws.
 */
import { describeValue, isPlainObject, type PlainObject } from './json-shape.js';

export interface SchemaReference {
  /** Where the `$ref` is, as the problems name it. */
  path: string;
  reference: string;
}

/** What the keyword walk collects for this check. */
export interface SchemaIndex {
  references: SchemaReference[];
  anchors: Set<string>;
  /** True when some schema inside declares an `$id`. */
  identified: boolean;
}

export function emptySchemaIndex(): SchemaIndex {
  return { references: [], anchors: new Set(), identified: false };
}

export function referenceProblems(root: PlainObject, index: SchemaIndex): string[] {
  if (index.identified) return [];
  const problems: string[] = [];
  for (const { path, reference } of index.references) {
    const problem = referenceProblem(root, reference, index.anchors);
    if (problem !== undefined) problems.push(`${path}: ${problem}`);
  }
  return problems;
}

function referenceProblem(
  root: PlainObject,
  reference: string,
  anchors: ReadonlySet<string>,
): string | undefined {
  const quoted = JSON.stringify(reference);
  if (!reference.startsWith('#')) {
    return `${quoted} names a schema outside this one, which no route can fetch; copy that schema under "$defs" and write "#/$defs/NAME"`;
  }
  if (reference === '#') return undefined;
  if (!reference.startsWith('#/')) {
    const anchor = safeDecode(reference.slice(1));
    if (anchor !== undefined && anchors.has(anchor)) return undefined;
    return `${quoted} names no "$anchor" of this schema; point at a "$defs" entry instead ("#/$defs/NAME")`;
  }
  const target = resolvePointer(root, reference.slice(2));
  if (target.kind === 'missing') {
    return `${quoted} points at nothing in this schema (no ${JSON.stringify(target.at)}); point at a "$defs" entry ("#/$defs/NAME")`;
  }
  if (typeof target.value !== 'boolean' && !isPlainObject(target.value)) {
    return `${quoted} points at ${describeValue(target.value)}, not at a schema`;
  }
  return undefined;
}

type Resolved = { kind: 'found'; value: unknown } | { kind: 'missing'; at: string };

/** Follows a JSON pointer (RFC 6901, percent-decoded as in a URI fragment) through plain data. */
function resolvePointer(root: unknown, pointer: string): Resolved {
  let current: unknown = root;
  for (const raw of pointer.split('/')) {
    const segment = safeDecode(raw)?.replaceAll('~1', '/').replaceAll('~0', '~');
    if (segment === undefined) return { kind: 'missing', at: raw };
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment)) {
      if (Number(segment) >= current.length) return { kind: 'missing', at: segment };
      current = current[Number(segment)];
    } else if (isPlainObject(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return { kind: 'missing', at: segment };
    }
  }
  return { kind: 'found', value: current };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
