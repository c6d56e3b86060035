import ipaddr from 'ipaddr.js';
import { BlockList, isIP } from 'node:net';

/** IPv4-compatible IPv6 addresses (deprecated by RFC 4291) tunnel to the IPv4 address they end with. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** Written `::a.b.c.d`, which the parser mistakes for the IPv4-mapped `::ffff:a.b.c.d`. */
function isIpv4CompatibleText(address: string): boolean {
  return address.startsWith('::') && isIP(address.slice(2)) === 4;
}

const MAPPED_PREFIX = '::ffff:';

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/**
 * Only globally routable unicast addresses may be reached (ipaddr.js' `unicast` range): private,
 * loopback, link-local, shared, multicast, reserved and documentation ranges are refused, and so are
 * the ranges that lead to IPv4 or to another network through translation or tunnels: NAT64 (RFC 6052
 * and the local-use 64:ff9b:1::/48), 6to4, Teredo, IPv4-compatible (::/96) and site-local (fec0::/10).
 * An IPv4-mapped address is judged by the IPv4 address it wraps. Anything unparsable is refused.
 */
export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIpv4CompatibleText(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== 'unicast';
  if (v6.match(IPV4_COMPATIBLE)) return true;
  return v6.range() !== 'unicast';
}

/** An allowed_ips entry: an IPv4/IPv6 address or a CIDR block. */
export function isIpOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || isIP(address) === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (isIP(address) === 6 ? 128 : 32);
}

/** `::ffff:10.0.0.1` is the IPv4 address it wraps, and the prefix of an entry written so counts its bits. */
function unmapped(address: string): string {
  const wrapped = address.slice(MAPPED_PREFIX.length);
  return address.toLowerCase().startsWith(MAPPED_PREFIX) && isIP(wrapped) === 4 ? wrapped : address;
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

/** BlockList itself judges an IPv4-mapped address and the IPv4 address it wraps alike. */
export function isAllowedBy(list: BlockList, address: string): boolean {
  return list.check(address, family(address));
}

/** Hostname of a URL without IPv6 brackets, as DNS and `net` expect it. */
export function hostOf(url: URL): string {
  // Stryker disable next-line Regex: a URL's hostname is bracketed whole or not at all, so the anchors change nothing
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
