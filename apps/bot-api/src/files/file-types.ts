/** Largest file an upload may declare (decisions: file at most 50 MB). */
export const MAX_FILE_SIZE = 50 * 1024 * 1024;

/**
 * MIME types an upload may declare. Images, video and audio that clients can show or play inline,
 * and common documents; anything executable or scriptable in a browser (HTML, SVG, JavaScript) is
 * left out, since download URLs serve the bytes with the declared type.
 */
export const ALLOWED_FILE_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'audio/mpeg',
  'audio/ogg',
  'audio/mp4',
  'audio/wav',
  'audio/webm',
  'application/pdf',
  'application/zip',
  'application/json',
  'text/plain',
  'text/csv',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/octet-stream',
] as const;

export type AllowedFileType = (typeof ALLOWED_FILE_TYPES)[number];

export function isImage(type: string): boolean {
  return type.startsWith('image/');
}

export function isTimedMedia(type: string): boolean {
  return type.startsWith('audio/') || type.startsWith('video/');
}
