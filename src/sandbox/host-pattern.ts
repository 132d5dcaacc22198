/**
 * The entries of `sandbox.allowedHosts` and how a requested host and port is matched against
 * them. What an entry means:
 * - `example.com`: that host on ports 80 and 443 (plain HTTP and HTTPS);
 * - `example.com:8080`: that host on port 8080 only;
 * - `example.com:*`: that host on any port;
 * - `*.example.com` (with the same port forms): every subdomain of example.com, at any depth,
 *   but not example.com itself (list both to allow both);
 * - an IP address (`127.0.0.1`, `[::1]`, `[::1]:8080`) with the same port forms.
 * Hosts match case-insensitively, a trailing dot is ignored, and international names are
 * compared in their ASCII (punycode) form. Names are never resolved: a request for a name is
 * matched against names, a request for an IP address against addresses, so allowing
 * `localhost` does not allow `127.0.0.1` and the other way round.
 */
import { domainToASCII } from 'node:url';

/** One parsed entry of `sandbox.allowedHosts`. */
export interface HostPattern {
  /** The entry as written, for messages. */
  readonly source: string;
  /** The host in lower case, without brackets or trailing dot; for a wildcard, the suffix after `*.`. */
  readonly host: string;
  /** True for `*.host`: subdomains of `host` match, `host` itself does not. */
  readonly subdomains: boolean;
  /** The ports that match: `'any'`, or a list (80 and 443 when the entry names none). */
  readonly ports: 'any' | readonly number[];
}

/** The ports an entry without a port allows. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const IPV6 = /^[0-9a-f:.]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const URL_DELIMITERS = /[\u0000-\u0020\u007f/\\?#@%:[\]<>^|*]/;

/**
 * A host as requested (or as written in an entry) in the one form both are compared in, or
 * undefined when it is not a host name or an IP address. Brackets around an IPv6 address go.
 */
export function normalizeHost(raw: string): string | undefined {
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    return host.includes(':') && IPV6.test(host) ? host : undefined;
  }
  if (host.includes(':')) return IPV6.test(host) ? host : undefined;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || host.length > 253) return undefined;
  if (IPV4.test(host)) {
    return host.split('.').every((part) => Number(part) <= 255) ? host : undefined;
  }
  // domainToASCII parses a URL host: it would read `a.com/x` as `a.com`, so those go first.
  if (URL_DELIMITERS.test(host)) return undefined;
  const ascii = domainToASCII(host);
  if (ascii === '') return undefined;
  return ascii.split('.').every((label) => label.length <= 63 && LABEL.test(label))
    ? ascii
    : undefined;
}

function invalid(entry: string, why: string): Error {
  return new Error(
    `sandbox.allowedHosts: "${entry}" is not a host pattern (${why}); write host, host:port, host:* or *.domain, e.g. "registry.npmjs.org" or "localhost:8080"`,
  );
}

function parsePort(entry: string, text: string): 'any' | number[] {
  if (text === '*') return 'any';
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) throw invalid(entry, `port "${text}" is not 1 to 65535`);
  return [port];
}

/** Parses one entry of `sandbox.allowedHosts`; throws naming the entry when it is malformed. */
export function parseHostPattern(entry: string): HostPattern {
  const text = entry.trim();
  let hostText = text;
  let ports: 'any' | readonly number[] = DEFAULT_PORTS;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw invalid(entry, 'an IPv6 address opened with [ is not closed');
    hostText = text.slice(0, close + 1);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw invalid(entry, `"${rest}" after the address`);
      ports = parsePort(entry, rest.slice(1));
    }
  } else {
    const colons = text.split(':').length - 1;
    if (colons === 1) {
      const at = text.indexOf(':');
      hostText = text.slice(0, at);
      ports = parsePort(entry, text.slice(at + 1));
    }
    // More than one colon: a bare IPv6 address, without a port.
  }
  let subdomains = false;
  if (hostText.startsWith('*.')) {
    subdomains = true;
    hostText = hostText.slice(2);
  }
  if (hostText.includes('*')) throw invalid(entry, '"*" may only begin it, as "*.domain"');
  const host = normalizeHost(hostText);
  if (host === undefined) throw invalid(entry, `"${hostText}" is not a host name or IP address`);
  if (subdomains && (host.includes(':') || IPV4.test(host))) {
    throw invalid(entry, '"*." takes a domain name, not an IP address');
  }
  return { source: entry, host, subdomains, ports };
}

/** Parses every entry; throws at the first malformed one. */
export function parseHostPatterns(entries: readonly string[]): HostPattern[] {
  return entries.map(parseHostPattern);
}

/** Whether `pattern` allows `host` (already normalized) on `port`. */
export function patternMatches(pattern: HostPattern, host: string, port: number): boolean {
  const hostMatches = pattern.subdomains
    ? host.endsWith(`.${pattern.host}`)
    : host === pattern.host;
  if (!hostMatches) return false;
  return pattern.ports === 'any' || pattern.ports.includes(port);
}

/** Whether any pattern allows `host` on `port`; a host that does not normalize is refused. */
export function hostAllowed(patterns: readonly HostPattern[], host: string, port: number): boolean {
  const normalized = normalizeHost(host);
  if (normalized === undefined) return false;
  return patterns.some((pattern) => patternMatches(pattern, normalized, port));
}
