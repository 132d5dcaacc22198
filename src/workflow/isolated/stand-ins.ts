/**
 * Stand-ins for hook arguments that crossed out of a QuickJS realm as descriptions: a JSON value
 * is itself, anything else a host value of the same kind (a function, a bigint, a non-plain
 * object...), so the worker engine's own hook checks (`hooks.ts`, `nested-workflow.ts`) run on
 * them and give the same errors on both engines. A stand-in never reaches a child or the wire:
 * the checks refuse every one that is not JSON.
 */

/** How the realm's prelude describes one argument (see `encode` in `realm-prelude.ts`). */
export type Encoded =
  | { j: string }
  | { u: 1 }
  | { f: 1 }
  | { b: 1 }
  | { s: 1 }
  | { n: string }
  | { o: 1 }
  | { a: 0 | 1; e: Replied }
  | { k: Array<[string, Encoded]> };

/** A refusal the realm made while copying a value out: raised once the host's checks pass. */
export interface Replied {
  code: 'RESULT_UNSERIALIZABLE' | 'RESULT_TOO_LARGE';
  message: string;
}

/** An object whose prototype is not a realm's `Object.prototype`: `describe` says non-plain. */
class NonPlainObject {}

/** The stand-in for one argument; a refusal to raise later is pushed on `deferred`. */
export function standInFor(encoded: Encoded | undefined, deferred: Replied[]): unknown {
  if (encoded === undefined || 'u' in encoded) return undefined;
  if ('j' in encoded) return JSON.parse(encoded.j) as unknown;
  if ('f' in encoded) return function standIn() {};
  if ('b' in encoded) return 0n;
  if ('s' in encoded) return Symbol('stand-in');
  if ('n' in encoded) return Number(encoded.n);
  if ('o' in encoded) return new NonPlainObject();
  if ('e' in encoded) {
    deferred.push(encoded.e);
    return encoded.a === 1 ? [] : {};
  }
  return standInOptions(encoded, deferred);
}

/** `agent()` options: a plain object arrives key by key, each key a stand-in of its own. */
export function standInOptions(encoded: Encoded | undefined, deferred: Replied[]): unknown {
  if (encoded === undefined || !('k' in encoded)) return standInFor(encoded, deferred);
  const options: Record<string, unknown> = {};
  for (const [key, value] of encoded.k) {
    Object.defineProperty(options, key, {
      value: standInFor(value, deferred),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return options;
}
