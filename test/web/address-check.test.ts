/**
 * The address check web_fetch runs on every address it would connect to: public addresses
 * pass; loopback, private, link-local, metadata, unique-local, unspecified, multicast and
 * reserved ones are refused, IPv4 carried inside IPv6 is judged as the IPv4 address, and text
 * that is no address is refused rather than let through.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipLiteral, refusedAddress } from '../../src/web/address-check.js';

test('public IPv4 and IPv6 addresses pass', () => {
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001:82a::200e]',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
  ]) {
    assert.equal(refusedAddress(address), undefined, address);
  }
});

test('loopback, private, link-local and the metadata address are refused, edges included', () => {
  const cases: Record<string, string> = {
    '127.0.0.1': 'loopback',
    '127.255.255.254': 'loopback',
    '10.0.0.1': 'private',
    '10.255.255.255': 'private',
    '172.16.0.1': 'private',
    '172.31.255.255': 'private',
    '192.168.1.1': 'private',
    '100.64.0.1': 'private',
    '169.254.0.1': 'link-local',
    '169.254.169.254': 'cloud metadata',
    '0.0.0.0': 'unspecified',
    '0.1.2.3': 'reserved',
    '224.0.0.1': 'multicast',
    '239.255.255.250': 'multicast',
    '240.0.0.1': 'reserved',
    '255.255.255.255': 'reserved',
    '192.0.0.8': 'reserved',
    '198.18.0.1': 'reserved',
  };
  for (const [address, kind] of Object.entries(cases)) {
    assert.equal(refusedAddress(address), kind, address);
  }
});

test('IPv6: loopback, unspecified, link-local, unique-local, multicast, and IPv4 inside IPv6', () => {
  const cases: Record<string, string> = {
    '::1': 'loopback',
    '0:0:0:0:0:0:0:1': 'loopback',
    '[::1]': 'loopback',
    '::': 'unspecified',
    'fe80::1': 'link-local',
    'fe80::1%eth0': 'link-local',
    'febf:ffff::1': 'link-local',
    'fc00::1': 'unique-local',
    'fd00:ec2::254': 'unique-local',
    'fdff:ffff::1': 'unique-local',
    'fec0::1': 'private',
    'ff02::1': 'multicast',
    '::ffff:127.0.0.1': 'loopback',
    '::ffff:7f00:1': 'loopback',
    '::FFFF:169.254.169.254': 'cloud metadata',
    '::ffff:10.1.2.3': 'private',
    '::ffff:0.0.0.0': 'unspecified',
    '::127.0.0.1': 'loopback',
    '::8.8.8.8': 'reserved',
    '64:ff9b::7f00:1': 'loopback',
    '64:ff9b::a9fe:a9fe': 'cloud metadata',
    '2002:7f00:0001::1': 'loopback',
    '2002:c0a8:0101::1': 'private',
  };
  for (const [address, kind] of Object.entries(cases)) {
    assert.equal(refusedAddress(address), kind, address);
  }
});

test('text that is no IP address is refused, never let through', () => {
  for (const text of [
    'example.com',
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '::ffff::1',
    'gggg::1',
  ]) {
    assert.equal(refusedAddress(text), 'unparsable', text);
  }
});

test('ipLiteral tells an address in a URL host from a name', () => {
  assert.equal(ipLiteral('127.0.0.1'), '127.0.0.1');
  assert.equal(ipLiteral('[::1]'), '::1');
  assert.equal(ipLiteral('example.com'), undefined);
  // The URL parser writes every IPv4 spelling (decimal, octal, hex) as dotted decimal first.
  assert.equal(ipLiteral(new URL('http://2130706433/').hostname), '127.0.0.1');
  assert.equal(ipLiteral(new URL('http://0x7f.1/').hostname), '127.0.0.1');
  assert.equal(refusedAddress(new URL('http://[::ffff:127.0.0.1]/').hostname), 'loopback');
});
