/**
 * One web_fetch download against a loopback server, with a fake resolver standing in for DNS
 * and an address policy that treats the server's own address (127.0.0.1) as public, so the
 * rules are seen at work on names: a redirect to a name that resolves to the metadata address
 * or to a loopback literal is refused, the socket connects to the very address that was checked
 * (a resolver that changes its answer later is never asked again), a host whose addresses are
 * mixed is reached only at the allowed one, and bodies are cut at maxBytes.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { refusedAddress } from '../../src/web/address-check.js';
import { WebError } from '../../src/web/contract.js';
import { checkedUrl, type GetOptions, httpGet } from '../../src/web/http-get.js';

let server: Server;
let port = 0;
const seen: string[] = [];

before(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.headers.host} ${request.url}`);
    const to = (location: string) => {
      response.writeHead(302, { location });
      response.end();
    };
    switch (request.url) {
      case '/to-metadata':
        return to(`http://metadata.test:${port}/`);
      case '/to-loopback':
        return to(`http://127.0.0.2:${port}/secret`);
      case '/to-mapped':
        return to(`http://[::ffff:169.254.169.254]:${port}/`);
      case '/to-file':
        return to('file:///etc/passwd');
      case '/to-other':
        return to(`http://other.test:${port}/page`);
      case '/loop':
        return to('/loop');
      case '/big':
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end('x'.repeat(50_000));
      default:
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end(`page ${request.url}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

/** Names to addresses, as DNS would answer; counts each question. */
function fakeResolver(answers: Record<string, Array<string | string[]>>) {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const queue = answers[host];
    if (!queue || queue.length === 0)
      throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    const answer = queue.length > 1 ? queue.shift() : queue[0];
    return [answer ?? []]
      .flat()
      .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

/** The test server stands in for a public site: its address alone passes the real policy. */
const policy = (address: string) => (address === '127.0.0.1' ? undefined : refusedAddress(address));

function options(resolve: GetOptions['resolve'], more: Partial<GetOptions> = {}): GetOptions {
  return {
    allowPrivate: false,
    maxBytes: 1_000_000,
    signal: new AbortController().signal,
    resolve,
    policy,
    userAgent: 'loom-test',
    ...more,
  };
}

async function refusedWith(promise: Promise<unknown>, pattern: RegExp): Promise<WebError> {
  const error = await promise.then(
    () => assert.fail('the fetch was not refused'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof WebError, String(error));
  assert.match(error.message, pattern);
  return error;
}

test('a redirect to a name that resolves to the metadata address is refused after resolution', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'], 'metadata.test': ['169.254.169.254'] });
  const error = await refusedWith(
    httpGet(checkedUrl(`http://site.test:${port}/to-metadata`), options(dns.resolve)),
    /metadata\.test \(169\.254\.169\.254\): it is a cloud metadata address.*web\.allowPrivate: true/,
  );
  assert.equal(error.code, 'WEB_REFUSED');
  assert.deepEqual(dns.asked, ['site.test', 'metadata.test']);
});

test('a redirect to a loopback or IPv4-mapped literal is refused without a lookup', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'] });
  await refusedWith(
    httpGet(checkedUrl(`http://site.test:${port}/to-loopback`), options(dns.resolve)),
    /127\.0\.0\.2: it is a loopback address/,
  );
  await refusedWith(
    httpGet(checkedUrl(`http://site.test:${port}/to-mapped`), options(dns.resolve)),
    /cloud metadata address/,
  );
  assert.ok(!seen.some((line) => line.includes('/secret')), 'the loopback target was reached');
});

test('a redirect to another scheme is refused', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'] });
  await refusedWith(
    httpGet(checkedUrl(`http://site.test:${port}/to-file`), options(dns.resolve)),
    /only http and https URLs, not file:/,
  );
  assert.throws(() => checkedUrl('ftp://example.com/x'), /only http and https URLs, not ftp:/);
  assert.throws(() => checkedUrl('not a url'), /is not a URL/);
  assert.throws(() => checkedUrl('http://user:pass@example.com/'), /no user name or password/);
});

test('the socket connects to the address checked: a rebinding resolver is asked once per hop', async () => {
  // The second answer would be the metadata address: a check-then-connect would ask again.
  const dns = fakeResolver({ 'rebind.test': ['127.0.0.1', '169.254.169.254'] });
  const outcome = await httpGet(
    checkedUrl(`http://rebind.test:${port}/hello`),
    options(dns.resolve),
  );
  assert.equal(outcome.kind, 'response');
  assert.equal(outcome.kind === 'response' && outcome.body.toString(), 'page /hello');
  assert.deepEqual(dns.asked, ['rebind.test']);
});

test('a host with a refused and an allowed address is reached at the allowed one only', async () => {
  const dns = fakeResolver({ 'mixed.test': [['169.254.169.254', '127.0.0.1']] });
  const outcome = await httpGet(
    checkedUrl(`http://mixed.test:${port}/mixed`),
    options(dns.resolve),
  );
  assert.equal(outcome.kind === 'response' && outcome.status, 200);
  const onlyRefused = fakeResolver({ 'inside.test': [['10.0.0.5', 'fd00::5']] });
  await refusedWith(
    httpGet(checkedUrl(`http://inside.test:${port}/`), options(onlyRefused.resolve)),
    /inside\.test \(10\.0\.0\.5\): it is a private address/,
  );
});

test('allowPrivate lets loopback names and literals through the real policy', async () => {
  const dns = fakeResolver({ 'local.test': ['127.0.0.1'] });
  const allowing = options(dns.resolve, { allowPrivate: true, policy: refusedAddress });
  const named = await httpGet(checkedUrl(`http://local.test:${port}/named`), allowing);
  assert.equal(named.kind === 'response' && named.body.toString(), 'page /named');
  const literal = await httpGet(checkedUrl(`http://127.0.0.1:${port}/literal`), allowing);
  assert.equal(literal.kind === 'response' && literal.body.toString(), 'page /literal');
  await refusedWith(
    httpGet(checkedUrl(`http://127.0.0.1:${port}/literal`), { ...allowing, allowPrivate: false }),
    /127\.0\.0\.1: it is a loopback address/,
  );
});

test('a redirect loop stops after ten hops', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'] });
  await refusedWith(
    httpGet(checkedUrl(`http://site.test:${port}/loop`), options(dns.resolve)),
    /redirected more than 10 times/,
  );
});

test('permission rules on a redirect to another host: deny refuses, ask hands it back', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
  const start = checkedUrl(`http://site.test:${port}/to-other`);
  const verdictFor = (verdict: 'deny' | 'ask' | 'allow') => (url: URL) =>
    url.hostname === 'other.test' ? verdict : undefined;
  await refusedWith(
    httpGet(start, options(dns.resolve, { redirectVerdict: verdictFor('deny') })),
    /redirected to http:\/\/other\.test:\d+\/page, which a permission rule denies/,
  );
  const held = await httpGet(start, options(dns.resolve, { redirectVerdict: verdictFor('ask') }));
  assert.equal(held.kind, 'redirect-held');
  assert.equal(held.kind === 'redirect-held' && held.location.hostname, 'other.test');
  const followed = await httpGet(
    start,
    options(dns.resolve, { redirectVerdict: verdictFor('allow') }),
  );
  assert.equal(followed.kind === 'response' && followed.url.hostname, 'other.test');
});

test('a body is read up to maxBytes and marked cut; one of exactly maxBytes is not', async () => {
  const dns = fakeResolver({ 'site.test': ['127.0.0.1'] });
  const cut = await httpGet(
    checkedUrl(`http://site.test:${port}/big`),
    options(dns.resolve, { maxBytes: 10_000 }),
  );
  assert.equal(cut.kind === 'response' && cut.body.length, 10_000);
  assert.equal(cut.kind === 'response' && cut.truncated, true);
  const whole = await httpGet(
    checkedUrl(`http://site.test:${port}/big`),
    options(dns.resolve, { maxBytes: 50_000 }),
  );
  assert.equal(whole.kind === 'response' && whole.truncated, false);
});
