/**
 * Preloaded into a bin/loom process by tests (`NODE_OPTIONS=--import PATH`): host names resolve
 * as `$LOOM_TEST_NAMES` says (a JSON object, name to IP address), and a connection to one of the
 * addresses in `$LOOM_TEST_ROUTED` (a JSON list, public-looking ones such as 203.0.113.7) goes to
 * 127.0.0.1 instead. web_fetch's own lookup and address check still see the address the name
 * resolved to, so a test can fetch from a "public" host on loopback while web.allowPrivate is
 * false and watch a redirect from it to a private address be refused. Nothing here reaches the
 * network: every other name goes to the system's resolver as before.
 */
import dns from 'node:dns';
import net from 'node:net';

const names = JSON.parse(process.env.LOOM_TEST_NAMES ?? '{}');
const routed = new Set(JSON.parse(process.env.LOOM_TEST_ROUTED ?? '[]'));
for (const address of routed) {
  if (net.isIP(address) === 0) throw new Error(`public-names-on-loopback: ${address} is no IP`);
}

const originalLookup = dns.lookup;
dns.lookup = (hostname, options, callback) => {
  const done = typeof options === 'function' ? options : callback;
  const wanted = typeof options === 'object' && options !== null ? options : {};
  const address = names[hostname];
  if (address === undefined) return originalLookup(hostname, options, callback);
  const family = net.isIP(address);
  process.nextTick(() =>
    wanted.all ? done(null, [{ address, family }]) : done(null, address, family),
  );
  return {};
};

/** The address a socket really connects to: a routed one becomes loopback. */
const onLoopback = (address) => (routed.has(address) ? '127.0.0.1' : address);

const wrapped = Symbol('routed lookup');

/** `lookup` with its answers routed: what it resolves is what the socket is told, rewritten. */
function routedLookup(lookup) {
  const routedOne = (hostname, lookupOptions, callback) =>
    lookup(hostname, lookupOptions, (error, address, family) => {
      if (error || address === undefined) return callback(error, address, family);
      if (Array.isArray(address)) {
        return callback(
          null,
          address.map((entry) => ({ ...entry, address: onLoopback(entry.address) })),
        );
      }
      return callback(null, onLoopback(address), family);
    });
  routedOne[wrapped] = true;
  return routedOne;
}

// net.connect hands Socket#connect its normalized arguments (an array) as the first argument.
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof options === 'object' && options !== null && typeof options.lookup === 'function') {
    if (!options.lookup[wrapped]) options.lookup = routedLookup(options.lookup);
  }
  return originalConnect.apply(this, args);
};
