import { originAllowed, originHost } from './origin-policy';

describe('origin policy', () => {
  it('allows any caller, even without an Origin header, when the list holds *', () => {
    expect(originAllowed(['*'], undefined)).toBe(true);
    expect(originAllowed(['shop.example.com', '*'], 'https://evil.test')).toBe(true);
  });

  it('allows an exact host only, ignoring scheme and port, and never its subdomains', () => {
    expect(originAllowed(['shop.example.com'], 'https://shop.example.com')).toBe(true);
    expect(originAllowed(['shop.example.com'], 'http://SHOP.example.com:8080')).toBe(true);
    expect(originAllowed(['shop.example.com'], 'https://a.shop.example.com')).toBe(false);
    expect(originAllowed(['shop.example.com'], 'https://example.com')).toBe(false);
  });

  it('allows subdomains of any depth for *.domain, but not the domain itself or look-alikes', () => {
    expect(originAllowed(['*.example.com'], 'https://a.example.com')).toBe(true);
    expect(originAllowed(['*.example.com'], 'https://a.b.example.com')).toBe(true);
    expect(originAllowed(['*.example.com'], 'https://example.com')).toBe(false);
    expect(originAllowed(['*.example.com'], 'https://badexample.com')).toBe(false);
  });

  it('refuses a missing, null or malformed Origin when a restriction is set', () => {
    expect(originAllowed(['shop.example.com'], undefined)).toBe(false);
    expect(originAllowed(['shop.example.com'], 'null')).toBe(false);
    expect(originAllowed(['shop.example.com'], 'not a url')).toBe(false);
    expect(originHost('https://shop.example.com:443/')).toBe('shop.example.com');
  });
});
