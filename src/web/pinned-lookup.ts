/**
 * The name lookup a `web_fetch` connection uses: it resolves the host, drops every address the
 * address check refuses (unless private addresses are allowed), and hands the socket only the
 * addresses it checked, so nothing resolves the name a second time between check and connect
 * (DNS rebinding). A host whose every address is refused fails with a `WEB_REFUSED` error naming
 * the address and the key that allows it. Never throws; failures go to the callback.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressKind } from './address-check.js';
import { WebError } from './contract.js';

/** Every address of a host name, as `dns.lookup(host, {all: true})` gives them. */
export type ResolveHost = (host: string) => Promise<LookupAddress[]>;

/** Why an address may not be reached; undefined when it may. */
export type AddressPolicy = (address: string) => AddressKind | undefined;

export const systemResolver: ResolveHost = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

export function refusal(host: string, address: string, kind: AddressKind): WebError {
  const shown = host === address ? address : `${host} (${address})`;
  return new WebError(
    'WEB_REFUSED',
    `refused to fetch ${shown}: it is a ${kind} address, and web_fetch reaches only public ones; set web.allowPrivate: true in config.yaml to allow it`,
  );
}

export function pinnedLookup(options: {
  resolve: ResolveHost;
  policy: AddressPolicy;
  allowPrivate: boolean;
}): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const wanted = typeof lookupOptions === 'object' ? lookupOptions : { family: lookupOptions };
    const family = wanted.family === 'IPv4' ? 4 : wanted.family === 'IPv6' ? 6 : wanted.family;
    options.resolve(hostname).then(
      (addresses) => {
        const ofFamily = addresses.filter(
          (entry) => family === undefined || family === 0 || entry.family === family,
        );
        const allowed = options.allowPrivate
          ? ofFamily
          : ofFamily.filter((entry) => options.policy(entry.address) === undefined);
        const first = allowed[0];
        if (!first) {
          const refused = ofFamily[0];
          const kind = refused ? options.policy(refused.address) : undefined;
          const error =
            refused && kind
              ? refusal(hostname, refused.address, kind)
              : new WebError('WEB_FAILED', `${hostname} has no address to connect to`);
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        if ('all' in wanted && wanted.all) {
          (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, allowed);
        } else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
