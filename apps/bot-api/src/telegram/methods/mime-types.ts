/** File extensions of the allowed upload types, for parts sent as application/octet-stream. */
const BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  txt: 'text/plain',
  csv: 'text/csv',
};

/**
 * The type a multipart part is stored with: frameworks send local files as application/octet-stream
 * (or nothing), so the file name's extension decides then, as Telegram's own servers do.
 */
export function mimeTypeOf(partType: string, fileName: string): string {
  const declared = partType.split(';')[0].trim().toLowerCase();
  if (declared && declared !== 'application/octet-stream') return declared;
  const extension = fileName.toLowerCase().split('.').pop() ?? '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}
