import { allowListOf, hostOf, isAllowedBy, isIpOrCidr, isRefusedAddress } from './address-policy';

describe('webhook address policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:10.0.0.1',
    '::',
  ])('refuses the private, loopback or link-local address %s', (address) =>
    expect(isRefusedAddress(address)).toBe(true),
  );

  it.each([
    ['NAT64 local-use', '64:ff9b:1::a00:1'],
    ['NAT64 well-known', '64:ff9b::10.0.0.1'],
    ['6to4', '2002:a00:1::1'],
    ['IPv4-compatible', '::10.0.0.1'],
    ['IPv4-compatible, hex', '::a00:1'],
    ['IPv4-compatible, public', '::8.8.8.8'],
    ['IPv4-compatible, public, two-digit octets', '::12.34.56.78'],
    ['IPv4-compatible, public, three-digit octets', '::123.124.125.126'],
    ['IPv4-mapped, multicast', '::ffff:224.0.0.1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4 broadcast', '255.255.255.255'],
    ['site-local', 'fec0::1'],
    ['Teredo', '2001:0:4136:e378::1'],
    ['documentation', '2001:db8::1'],
    ['TEST-NET', '192.0.2.10'],
    ['not an address', 'example.com'],
  ])('security defect 6: refuses the %s address %s', (_kind, address) => expect(isRefusedAddress(address)).toBe(true));

  it.each(['8.8.8.8', '203.0.114.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '2001:4860::8.8.8.8'])(
    'accepts the public address %s',
    (address) => expect(isRefusedAddress(address)).toBe(false),
  );

  it('accepts IP addresses and CIDR blocks as allowed_ips entries, nothing else', () => {
    for (const entry of ['1.2.3.4', '10.0.0.0/8', '2001:db8::/32', '::1']) expect(isIpOrCidr(entry)).toBe(true);
    for (const entry of ['example.com', '1.2.3.4/33', '1.2.3.4/', '1.2.3/24', '::/129', '1.2.3.4/8/1', ''])
      expect(isIpOrCidr(entry)).toBe(false);
  });

  it('takes prefixes up to the address length: /32 for IPv4, /128 and those above 32 for IPv6', () => {
    for (const entry of ['1.2.3.4/32', '1.2.3.4/0', '2001:db8::1/128', '2001:db8::/48', '2001:db8::/64', '::/0'])
      expect(isIpOrCidr(entry)).toBe(true);
    for (const entry of [
      '1.2.3.4/48',
      '2001:db8::/0129',
      '1.2.3.4/-1',
      '1.2.3.4/+8',
      '1.2.3.4/ 8',
      '1.2.3.4/8 ',
      '1.2.3.4/1e1',
      '1.2.3.4/a8',
    ])
      expect(isIpOrCidr(entry)).toBe(false);
  });

  it('matches resolved addresses against exact entries and blocks', () => {
    const list = allowListOf(['203.0.113.7', '198.51.100.0/24', '2001:db8::/32']);
    expect(isAllowedBy(list, '203.0.113.7')).toBe(true);
    expect(isAllowedBy(list, '203.0.113.8')).toBe(false);
    expect(isAllowedBy(list, '198.51.100.250')).toBe(true);
    expect(isAllowedBy(list, '::ffff:198.51.100.1')).toBe(true);
    expect(isAllowedBy(list, '2001:db8::5')).toBe(true);
    expect(isAllowedBy(list, '2001:db9::5')).toBe(false);
  });

  it('judges IPv4-mapped entries and addresses by the IPv4 address they wrap, in either letter case', () => {
    const list = allowListOf(['::ffff:203.0.113.7', '::FFFF:198.51.100.10/24']);
    expect(isAllowedBy(list, '203.0.113.7')).toBe(true);
    expect(isAllowedBy(list, '::FFFF:203.0.113.7')).toBe(true);
    expect(isAllowedBy(list, '198.51.100.9')).toBe(true);
    expect(isAllowedBy(list, '203.0.113.8')).toBe(false);
    expect(isAllowedBy(allowListOf(['203.0.113.7']), '::ffff:203.0.113.7')).toBe(true);
    expect(isAllowedBy(allowListOf(['203.0.113.77']), '::ffff:cb00:714d')).toBe(true);
    // Only ::ffff:0:0/96 wraps an IPv4 address; another prefix before the same digits does not.
    expect(isAllowedBy(allowListOf(['203.0.113.7']), '1::ffff:203.0.113.7')).toBe(false);
    expect(isAllowedBy(allowListOf(['1::ffff:203.0.113.7']), '203.0.113.7')).toBe(false);
    // A mapped entry in hex notation is left to BlockList, which reads it as the IPv4 address.
    expect(isAllowedBy(allowListOf(['::ffff:cb00:7107']), '203.0.113.7')).toBe(true);
    // Seven characters before an IPv4 address, but not ::ffff: — an IPv6 address of its own.
    expect(isAllowedBy(allowListOf(['1:2::3:1.2.3.4']), '1.2.3.4')).toBe(false);
    expect(isAllowedBy(allowListOf(['::ffff:203.0.113.77']), '203.0.113.77')).toBe(true);
    expect(isAllowedBy(allowListOf(['::ffff:203.0.113.77']), '203.0.113.7')).toBe(false);
    expect(isAllowedBy(allowListOf(['::/0']), '2001:db8::1')).toBe(true);
    expect(isAllowedBy(allowListOf(['0.0.0.0/0']), '2001:db8::1')).toBe(false);
  });

  it('gives a URL host as DNS and sockets take it: IPv6 without its brackets, names as they are', () => {
    expect(hostOf(new URL('https://[2001:db8::1]:8443/hook'))).toBe('2001:db8::1');
    expect(hostOf(new URL('https://hooks.example.com/hook'))).toBe('hooks.example.com');
    expect(hostOf(new URL('http://203.0.113.7/'))).toBe('203.0.113.7');
  });
});
