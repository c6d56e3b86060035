import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export class HostNotResolvedError extends Error {}

/** RFC 6761: localhost names always mean the loopback interface; no DNS server is asked. */
const LOCALHOST = /^(.+\.)?localhost\.?$/i;
const LOOPBACK = ['127.0.0.1', '::1'];

/**
 * Resolves webhook hosts with c-ares (`dns.Resolver`) and a timeout per query, instead of
 * `dns.lookup`, which runs getaddrinfo on libuv's four worker threads: a few hosts whose DNS server
 * never answers would hold all four, and with them every file read and lookup of the process.
 */
export class HostResolver {
  private readonly resolver: Resolver;

  /** `servers` replaces the system's name servers (tests point it at their own). */
  constructor(timeoutMs: number, tries = 2, servers?: string[]) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries });
    if (servers) this.resolver.setServers(servers);
  }

  /** Every IPv4 and IPv6 address of `host` (an IP literal is its own answer); throws when there is none. */
  async resolve(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    if (LOCALHOST.test(host)) return LOOPBACK;
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
    const addresses = [v4, v6].flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    if (addresses.length === 0) throw new HostNotResolvedError(`${host} does not resolve`);
    return addresses;
  }
}
