export const FILE_STORAGE_DRIVERS = ['disk', 's3'] as const;
export type FileStorageDriverName = (typeof FILE_STORAGE_DRIVERS)[number];

export const DEV_FILE_URL_SIGNING_KEY = '202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f';

/** The file storage settings of bot-api's configuration. */
export interface FileStorageSettings {
  NODE_ENV: string;
  FILE_STORAGE_DRIVER: FileStorageDriverName;
  FILE_STORAGE_DIR: string;
  FILE_PUBLIC_BASE_URL: string;
  FILE_URL_SIGNING_KEY: string;
  FILE_UPLOAD_TTL_SECONDS: number;
  FILE_DOWNLOAD_URL_TTL_SECONDS: number;
  FILE_UPDATE_URL_TTL_SECONDS: number;
  FILE_UPLOAD_PURGE_INTERVAL_MS: number;
  FILE_S3_ENDPOINT: string;
  FILE_S3_BUCKET: string;
  FILE_S3_REGION: string;
  FILE_S3_ACCESS_KEY_ID: string;
  FILE_S3_SECRET_ACCESS_KEY: string;
  FILE_S3_FORCE_PATH_STYLE: boolean;
  UPDATES_RETENTION_HOURS: number;
}

/** Checks across the file storage variables, reported with the others at boot. */
export function fileStorageProblems(config: FileStorageSettings): string[] {
  const problems: string[] = [];
  if (config.FILE_STORAGE_DRIVER === 's3') {
    if (config.FILE_S3_BUCKET === '') problems.push('FILE_S3_BUCKET: required when FILE_STORAGE_DRIVER=s3');
    if ((config.FILE_S3_ACCESS_KEY_ID === '') !== (config.FILE_S3_SECRET_ACCESS_KEY === '')) {
      problems.push('FILE_S3_ACCESS_KEY_ID, FILE_S3_SECRET_ACCESS_KEY: give both or neither');
    }
    if (config.FILE_S3_ENDPOINT !== '' && !/^https?:\/\/[^/?#]+/.test(config.FILE_S3_ENDPOINT)) {
      problems.push('FILE_S3_ENDPOINT: must be an http(s) URL');
    }
  }
  if (config.FILE_STORAGE_DRIVER === 'disk' && config.FILE_STORAGE_DIR.trim() === '') {
    problems.push('FILE_STORAGE_DIR: required when FILE_STORAGE_DRIVER=disk');
  }
  if (config.FILE_UPDATE_URL_TTL_SECONDS < config.UPDATES_RETENTION_HOURS * 3600) {
    problems.push(
      'FILE_UPDATE_URL_TTL_SECONDS: must cover UPDATES_RETENTION_HOURS, or an Update could be delivered with an expired file.url',
    );
  }
  if (
    config.NODE_ENV === 'production' &&
    config.FILE_STORAGE_DRIVER === 'disk' &&
    !config.FILE_PUBLIC_BASE_URL.startsWith('https:')
  ) {
    // The signed URLs are the only credential of the bytes; over http: any hop on the way can replay them.
    problems.push('FILE_PUBLIC_BASE_URL: must be https: when NODE_ENV=production');
  }
  if (
    config.NODE_ENV === 'production' &&
    config.FILE_STORAGE_DRIVER === 'disk' &&
    config.FILE_URL_SIGNING_KEY.toLowerCase() === DEV_FILE_URL_SIGNING_KEY
  ) {
    problems.push('FILE_URL_SIGNING_KEY: the development default is refused when NODE_ENV=production');
  }
  return problems;
}
