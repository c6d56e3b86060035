import { userContentHeaders } from './user-content-headers';

describe('userContentHeaders', () => {
  it('lets images, audio and video show inline, sandboxed and never sniffed', () => {
    for (const type of ['image/png', 'audio/mpeg', 'video/mp4']) {
      expect(userContentHeaders(type)).toEqual({
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': 'sandbox',
      });
    }
  });

  it('makes every other type, SVG included, a download (defect 8)', () => {
    for (const type of [
      'application/pdf',
      'text/plain',
      'application/json',
      'image/svg+xml',
      'application/octet-stream',
    ]) {
      expect(userContentHeaders(type)).toMatchObject({
        'Content-Disposition': 'attachment',
        'Content-Security-Policy': 'sandbox',
      });
    }
  });
});
