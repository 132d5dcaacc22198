/**
 * A small `Headers` for the provider path. Node 20's own `Headers` and `fetch` live in its bundled
 * undici, whose first use costs about 25 ms (loading) and 50 ms (the first request) of a one-prompt
 * `loom run`, more than the rest of the provider stack. The bundle gives the AI SDK's
 * provider-utils this class in place of the global (scripts/bundle.mjs, `lightHeaders`), and
 * `nodeFetch` answers with it. It keeps what those callers use: case-insensitive names, `get`,
 * `set`, `append`, `has`, `delete`, `forEach` and iteration in name order, as the standard one does.
 */
type HeadersInput =
  | Record<string, string | readonly string[] | undefined>
  | Iterable<readonly [string, string]>
  | { forEach(callback: (value: string, name: string) => void): void };

export class LightHeaders {
  readonly #values = new Map<string, string>();

  constructor(init?: HeadersInput) {
    if (init === undefined || init === null) return;
    if (isForEachable(init)) {
      init.forEach((value, name) => {
        this.append(name, value);
      });
    } else if (Symbol.iterator in init) {
      for (const [name, value] of init as Iterable<readonly [string, string]>)
        this.append(name, value);
    } else {
      for (const [name, value] of Object.entries(init)) {
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const each of value) this.append(name, each);
        else this.append(name, value as string);
      }
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), String(value));
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const before = this.#values.get(key);
    this.#values.set(key, before === undefined ? String(value) : `${before}, ${value}`);
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string, headers: LightHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()].sort();
    for (const name of names) yield [name, this.#values.get(name) as string];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

function isForEachable(
  init: HeadersInput,
): init is { forEach(callback: (value: string, name: string) => void): void } {
  return !Array.isArray(init) && typeof (init as { forEach?: unknown }).forEach === 'function';
}

/** What the bundle's provider-utils imports in place of the global (`lightHeaders`). */
export { LightHeaders as Headers };
