import { Readable } from 'node:stream';
import { deflateSync, crc32 } from 'node:zlib';
import { probeMedia } from './media-probe';

function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 0;
  const pixels = Buffer.alloc((width + 1) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** 8-bit mono PCM WAV of the given length at 8 kHz. */
function wav(seconds: number): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * seconds, 128);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // bytes per second
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A byte stream as files and S3 bodies give it (Readable.from would make an object stream). */
function bytesOf(buffer: Buffer): Readable {
  return Readable.from([buffer], { objectMode: false });
}

describe('probeMedia', () => {
  it('reads width and height of an image from its bytes', async () => {
    const bytes = png(640, 480);
    expect(await probeMedia(bytesOf(bytes), 'image/png', bytes.length)).toEqual({
      width: 640,
      height: 480,
      duration: null,
    });
  });

  it('reads the duration of audio from its bytes', async () => {
    const bytes = wav(3);
    expect(await probeMedia(bytesOf(bytes), 'audio/wav', bytes.length)).toEqual({
      width: null,
      height: null,
      duration: 3,
    });
  });

  it('gives nulls for bytes that are not what their type says, and for documents', async () => {
    const junk = Buffer.from('not an image at all');
    const nothing = { width: null, height: null, duration: null };
    expect(await probeMedia(bytesOf(junk), 'image/png', junk.length)).toEqual(nothing);
    expect(await probeMedia(bytesOf(junk), 'audio/mpeg', junk.length)).toEqual(nothing);
    expect(await probeMedia(bytesOf(junk), 'application/pdf', junk.length)).toEqual(nothing);
  });
});
