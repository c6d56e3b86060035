import { BlockList, isIP } from 'node:net';

/** Addresses a webhook may never reach unless private targets are allowed (development and tests). */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/** `::ffff:10.0.0.1` is the IPv4 address it wraps. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1] : address;
}

/** Private, loopback, link-local, shared, multicast and unspecified addresses are refused. */
export function isRefusedAddress(address: string): boolean {
  const plain = unmapped(address);
  return REFUSED.check(plain, family(plain));
}

/** An allowed_ips entry: an IPv4/IPv6 address or a CIDR block. */
export function isIpOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || isIP(address) === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (isIP(address) === 6 ? 128 : 32);
}

export function allowListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const plain = unmapped(address);
    if (prefix === undefined) list.addAddress(plain, family(plain));
    else list.addSubnet(plain, Number(prefix), family(plain));
  }
  return list;
}

export function isAllowedBy(list: BlockList, address: string): boolean {
  const plain = unmapped(address);
  return list.check(plain, family(plain));
}

/** Hostname of a URL without IPv6 brackets, as DNS and `net` expect it. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
