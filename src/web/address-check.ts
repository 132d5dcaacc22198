/**
 * Which IP addresses `web_fetch` may connect to: a public address yes; loopback, private,
 * link-local (the cloud metadata address 169.254.169.254 among them), unique-local IPv6,
 * unspecified, multicast and reserved ones no, unless `web.allowPrivate`. IPv6 forms that carry
 * an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by the IPv4 address inside. Pure:
 * it parses text, never resolves a name; an address it cannot parse is refused, never let through.
 */
import { isIP } from 'node:net';

/** Why an address is refused; `undefined` from `refusedAddress` means it is public. */
export type AddressKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cloud metadata'
  | 'unique-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'unparsable';

interface Range {
  base: number[];
  bits: number;
  kind: AddressKind;
}

/** The IPv4 ranges refused, most specific first (the metadata address before link-local). */
const IPV4_REFUSED: Range[] = [
  { base: [169, 254, 169, 254], bits: 32, kind: 'cloud metadata' },
  { base: [0, 0, 0, 0], bits: 32, kind: 'unspecified' },
  { base: [0, 0, 0, 0], bits: 8, kind: 'reserved' },
  { base: [10, 0, 0, 0], bits: 8, kind: 'private' },
  { base: [100, 64, 0, 0], bits: 10, kind: 'private' },
  { base: [127, 0, 0, 0], bits: 8, kind: 'loopback' },
  { base: [169, 254, 0, 0], bits: 16, kind: 'link-local' },
  { base: [172, 16, 0, 0], bits: 12, kind: 'private' },
  { base: [192, 0, 0, 0], bits: 24, kind: 'reserved' },
  { base: [192, 168, 0, 0], bits: 16, kind: 'private' },
  { base: [198, 18, 0, 0], bits: 15, kind: 'reserved' },
  { base: [224, 0, 0, 0], bits: 4, kind: 'multicast' },
  { base: [240, 0, 0, 0], bits: 4, kind: 'reserved' },
];

function inRange(bytes: readonly number[], range: Range): boolean {
  let bits = range.bits;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((range.base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

function ipv4Kind(bytes: readonly number[]): AddressKind | undefined {
  return IPV4_REFUSED.find((range) => inRange(bytes, range))?.kind;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(text: string): number[] | undefined {
  let address = text.toLowerCase();
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const bytes = ipv4Bytes(tail);
    if (!bytes) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = bytes;
    const high = ((a << 8) | b).toString(16);
    const low = ((c << 8) | d).toString(16);
    address = `${address.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0] ?? '');
  const rest = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16));
}

function embeddedIpv4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

function ipv6Kind(groups: readonly number[]): AddressKind | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64).
  if (zeroUpTo(5) && g5 === 0xffff) return ipv4Kind(embeddedIpv4(g6, g7));
  if (zeroUpTo(6)) return ipv4Kind(embeddedIpv4(g6, g7)) ?? 'reserved';
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return ipv4Kind(embeddedIpv4(g6, g7));
  }
  // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  if (g0 === 0x2002) return ipv4Kind(embeddedIpv4(g1, g2));
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/**
 * Why `address` (an IP address as text; IPv6 with or without brackets or a zone) is refused, or
 * undefined when it is a public address.
 */
export function refusedAddress(address: string): AddressKind | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0] ?? '');
  if (family === 4) {
    const bytes = ipv4Bytes(bare);
    return bytes ? ipv4Kind(bytes) : 'unparsable';
  }
  if (family === 6) {
    const groups = ipv6Groups(bare);
    return groups ? ipv6Kind(groups) : 'unparsable';
  }
  return 'unparsable';
}

/** `address` without IPv6 brackets, when it is an IP address at all; else undefined. */
export function ipLiteral(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) === 0 ? undefined : bare;
}
