/**
 * How a failed connection to an HTTP MCP server is told: it names the server's URL without its
 * user info, query and fragment (where credentials sit) and the network's reason (`ECONNREFUSED`),
 * never the bare "fetch failed". Pure; never throws.
 */
import { errorMessage } from '../base/errors.js';

/** `https://host:port/path` of `url`: no `user:password@`, no `?query`, no `#fragment`. */
export function urlWithoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}

/** The reason under a `fetch failed`: the cause's code and message (`ECONNREFUSED: connect …`). */
function causeOf(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause === undefined) return undefined;
  const code = (cause as { code?: unknown }).code;
  const message = errorMessage(cause);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** `could not connect to URL: REASON`, with the full URL (and its forms) nowhere in REASON. */
export function describeHttpConnectError(url: string, error: unknown): string {
  const shown = urlWithoutCredentials(url);
  const forms = new Set([url]);
  try {
    forms.add(new URL(url).href);
  } catch {}
  const cause = causeOf(error);
  let reason = cause === undefined ? errorMessage(error) : `${errorMessage(error)} (${cause})`;
  for (const form of forms) reason = reason.split(form).join(shown);
  return `could not connect to ${shown}: ${reason}`;
}
