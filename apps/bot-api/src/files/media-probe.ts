import { imageSize } from 'image-size';
// music-metadata 7 is the last CommonJS release; 8 and later are ESM only, which neither ts-node nor
// jest (both CommonJS here) can load on Node 20 without experimental flags.
import { parseStream } from 'music-metadata';
import type { Readable } from 'node:stream';
import { isImage, isTimedMedia } from './file-types';

export interface MediaFacts {
  width: number | null;
  height: number | null;
  /** Whole seconds, rounded. */
  duration: number | null;
}

const NOTHING: MediaFacts = { width: null, height: null, duration: null };

/** Every image format image-size reads keeps its dimensions well within the first bytes. */
const IMAGE_HEAD_BYTES = 512 * 1024;

/**
 * Width and height of images, duration (and the video track's size) of audio and video, read from
 * the stored bytes. Unreadable or truncated media give nulls: facts are a courtesy, not a check.
 */
export async function probeMedia(stream: Readable, mimeType: string, size: number): Promise<MediaFacts> {
  try {
    if (isImage(mimeType)) {
      const { width, height } = imageSize(await readHead(stream, IMAGE_HEAD_BYTES));
      return { width: width ?? null, height: height ?? null, duration: null };
    }
    if (isTimedMedia(mimeType)) {
      const metadata = await parseStream(stream, { mimeType, size }, { duration: true, skipCovers: true });
      const video = metadata.format.trackInfo.find((track) => track.video)?.video;
      const seconds = metadata.format.duration;
      return {
        width: video?.pixelWidth ?? null,
        height: video?.pixelHeight ?? null,
        duration: seconds !== undefined && Number.isFinite(seconds) ? Math.round(seconds) : null,
      };
    }
    return NOTHING;
  } catch {
    return NOTHING;
  } finally {
    stream.destroy();
  }
}

async function readHead(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
