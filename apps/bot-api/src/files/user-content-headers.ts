/** Media a browser shows or plays itself; SVG is an image that can carry script, so it is not among them. */
const SHOWN_INLINE = /^(image\/(?!svg)|audio\/|video\/)/;

/**
 * Headers of every answer that carries user-uploaded bytes. They are served from bot-api's origin,
 * which the staff console shares, so a browser must never run them as a page: no type sniffing, a
 * sandbox without scripts or same-origin access, and anything but images, audio and video saved as a
 * download instead of shown.
 */
export function userContentHeaders(type: string): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox',
    ...(SHOWN_INLINE.test(type.toLowerCase()) ? {} : { 'Content-Disposition': 'attachment' }),
  };
}
