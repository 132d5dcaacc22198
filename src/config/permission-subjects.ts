/**
 * What a permission rule's `match` may name besides a tool's own arguments: a value derived from
 * them. Today `web_fetch`'s `host`, the host name of its `url` (lower case, an IPv6 address
 * without brackets), so `{ tool: web_fetch, match: { host: "*.example.com" }, action: allow }`
 * works per site. Pure; never throws (a URL that does not parse has no host, so no rule on
 * `host` matches it; web_fetch refuses it anyway).
 */

type Derive = (args: Record<string, unknown>) => string | undefined;

function urlHost(args: Record<string, unknown>): string | undefined {
  if (typeof args.url !== 'string') return undefined;
  try {
    const host = new URL(args.url).hostname;
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  } catch {
    return undefined;
  }
}

const DERIVED: Record<string, Record<string, Derive>> = {
  web_fetch: { host: urlHost },
};

/** The names a rule for `tool` may match on beyond its arguments. */
export function derivedSubjectNames(tool: string): string[] {
  return Object.keys(DERIVED[tool] ?? {});
}

/** Whether `name` is a derived subject of `tool`. */
export function isDerivedSubject(tool: string, name: string): boolean {
  return Object.hasOwn(DERIVED[tool] ?? {}, name);
}

/** The derived value of `name` for a call of `tool` with `args`; undefined when there is none. */
export function derivedSubject(
  tool: string,
  name: string,
  args: Record<string, unknown>,
): string | undefined {
  const derive = DERIVED[tool]?.[name];
  return derive ? derive(args) : undefined;
}
