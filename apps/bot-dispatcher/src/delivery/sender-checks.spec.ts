import { acceptableAddresses, AddressRefusedError, addressRefusal, describeSendError } from './sender-checks';

const PUBLIC_ONLY = { allowPrivate: false, allowedIps: null };
const PRIVATE_REFUSED = 'the host resolves only to private or reserved addresses; not connected';
const NOT_ALLOWED = 'no resolved address is in allowed_ips; not connected';

describe('the webhook sender address checks', () => {
  it('connects only to public addresses, in the order they resolved', () => {
    const resolved = ['10.0.0.5', '203.0.114.9', '::1', '2001:4860:4860::8888'];
    expect(acceptableAddresses(resolved, PUBLIC_ONLY)).toEqual(['203.0.114.9', '2001:4860:4860::8888']);
    expect(addressRefusal(resolved, PUBLIC_ONLY)).toBeNull();
  });

  it('refuses a host with only private or reserved addresses, without naming them', () => {
    const refusal = addressRefusal(['10.0.0.5', '169.254.169.254'], PUBLIC_ONLY);
    expect(refusal).toBe(PRIVATE_REFUSED);
    expect(refusal).not.toMatch(/10\.0\.0\.5|169\.254/);
    expect(addressRefusal([], PUBLIC_ONLY)).toBe(PRIVATE_REFUSED);
  });

  it('reaches private addresses when allowPrivate says so', () => {
    const rules = { allowPrivate: true, allowedIps: null };
    expect(acceptableAddresses(['10.0.0.5', '127.0.0.1'], rules)).toEqual(['10.0.0.5', '127.0.0.1']);
    expect(addressRefusal(['10.0.0.5'], rules)).toBeNull();
  });

  it('keeps to the bot allowed_ips, which never opens a private address without allowPrivate', () => {
    const rules = { allowPrivate: false, allowedIps: ['203.0.114.0/24', '10.0.0.0/8'] };
    expect(acceptableAddresses(['203.0.114.9', '198.51.99.1', '10.0.0.5'], rules)).toEqual(['203.0.114.9']);
    expect(addressRefusal(['198.51.99.1'], rules)).toBe(NOT_ALLOWED);
    expect(addressRefusal(['10.0.0.5'], rules)).toBe(NOT_ALLOWED);
    const withPrivate = { allowPrivate: true, allowedIps: ['10.0.0.0/8'] };
    expect(acceptableAddresses(['10.0.0.5', '10.1.0.1', '192.168.0.1'], withPrivate)).toEqual(['10.0.0.5', '10.1.0.1']);
  });
});

describe('describeSendError', () => {
  it('says a timed out or aborted request got no response within the timeout', () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      const error = Object.assign(new Error('This operation was aborted'), { name });
      expect(describeSendError(error, 2500)).toBe('no response within 2500 ms');
    }
  });

  it('gives a policy refusal as it is, raised directly or as the cause of a connection error', () => {
    const refused = new AddressRefusedError(PRIVATE_REFUSED);
    expect(refused.code).toBe('EADDRREFUSEDBYPOLICY');
    expect(describeSendError(refused, 1000)).toBe(PRIVATE_REFUSED);
    expect(describeSendError(new Error('fetch failed', { cause: refused }), 1000)).toBe(PRIVATE_REFUSED);
  });

  it('names the error code, the message and a cause that says something else', () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(describeSendError(reset, 1000)).toBe('UND_ERR_SOCKET other side closed');
    const wrapped = new Error('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    expect(describeSendError(wrapped, 1000)).toBe('fetch failed: connect ECONNREFUSED');
    const same = new Error('socket hang up', { cause: new Error('socket hang up') });
    expect(describeSendError(same, 1000)).toBe('socket hang up');
  });

  it('keeps at most 500 characters', () => {
    const long = describeSendError(new Error('x'.repeat(600), { cause: new Error('y'.repeat(600)) }), 1000);
    expect(long).toBe('x'.repeat(500));
  });
});
