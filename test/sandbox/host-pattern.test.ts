import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hostAllowed,
  normalizeHost,
  parseHostPattern,
  parseHostPatterns,
} from '../../src/sandbox/host-pattern.js';

const allows = (entries: string[], host: string, port: number) =>
  hostAllowed(parseHostPatterns(entries), host, port);

test('a bare host allows ports 80 and 443 only; host:port that port; host:* any port', () => {
  assert.equal(allows(['example.com'], 'example.com', 80), true);
  assert.equal(allows(['example.com'], 'example.com', 443), true);
  assert.equal(allows(['example.com'], 'example.com', 8080), false);
  assert.equal(allows(['example.com:8080'], 'example.com', 8080), true);
  assert.equal(allows(['example.com:8080'], 'example.com', 443), false);
  assert.equal(allows(['example.com:*'], 'example.com', 22), true);
});

test('hosts match case-insensitively, with a trailing dot ignored, and other hosts do not', () => {
  assert.equal(allows(['Example.COM'], 'EXAMPLE.com', 443), true);
  assert.equal(allows(['example.com'], 'example.com.', 443), true);
  assert.equal(allows(['example.com'], 'www.example.com', 443), false);
  assert.equal(allows(['example.com'], 'example.com.evil.test', 443), false);
  assert.equal(allows(['example.com'], 'notexample.com', 443), false);
  assert.equal(allows([], 'example.com', 443), false);
});

test('*.domain allows subdomains at any depth but not the domain itself', () => {
  const entries = ['*.example.com'];
  assert.equal(allows(entries, 'api.example.com', 443), true);
  assert.equal(allows(entries, 'a.b.example.com', 80), true);
  assert.equal(allows(entries, 'example.com', 443), false);
  assert.equal(allows(entries, 'badexample.com', 443), false);
  assert.equal(allows(['*.example.com:8443'], 'api.example.com', 8443), true);
  assert.equal(allows(['*.example.com:8443'], 'api.example.com', 443), false);
});

test('names are never resolved: localhost and 127.0.0.1 are different hosts', () => {
  assert.equal(allows(['localhost:8080'], '127.0.0.1', 8080), false);
  assert.equal(allows(['127.0.0.1:8080'], 'localhost', 8080), false);
  assert.equal(allows(['127.0.0.1:8080'], '127.0.0.1', 8080), true);
  assert.equal(allows(['[::1]:8080'], '::1', 8080), true);
  assert.equal(allows(['[::1]:8080'], '[::1]', 8080), true);
  assert.equal(allows(['::1'], '::1', 443), true);
  assert.equal(allows(['[::1]:8080'], '127.0.0.1', 8080), false);
});

test('international names compare in their ASCII form; malformed requested hosts are refused', () => {
  assert.equal(allows(['bücher.example'], 'xn--bcher-kva.example', 443), true);
  assert.equal(normalizeHost('exa mple.com'), undefined);
  assert.equal(normalizeHost('example.com/x'), undefined);
  assert.equal(allows(['example.com'], 'example.com\u0000', 443), false);
  assert.equal(allows(['*.example.com'], '', 443), false);
});

test('a malformed entry is refused naming it and the config key', () => {
  for (const entry of [
    '',
    'example.com:0',
    'example.com:99999',
    'exa*mple.com',
    '*.1.2.3.4',
    '[::1',
    'a b',
    'host:x',
  ]) {
    assert.throws(
      () => parseHostPattern(entry),
      (error: Error) =>
        error.message.includes('sandbox.allowedHosts') && error.message.includes(`"${entry}"`),
      entry,
    );
  }
  assert.deepEqual(parseHostPattern('*.Example.com:8443'), {
    source: '*.Example.com:8443',
    host: 'example.com',
    subdomains: true,
    ports: [8443],
  });
});
