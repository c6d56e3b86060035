import { BotErrorDoc } from '../bot-errors';
import { SuccessDoc } from '../method-docs';
import { FileInfoView, UploadCredentialsView } from './dto/file.view';

/** Documentation the bot and the client upload routes share. */
export const CREDENTIALS_DOC: [string, SuccessDoc] = [
  'Upload step 1: a single-use, expiring URL to PUT the bytes to (at most 50 MB, an allowed type)',
  { status: 201, description: '`uploadUrl`, `key`, `headers`, `expiresAt`', type: UploadCredentialsView },
];

export const COMPLETE_DOC: [string, SuccessDoc] = [
  'Upload step 3: checks the stored bytes against the declaration and returns the file',
  {
    status: 201,
    description: 'The file: `file_id`, temporary `url`, width/height/duration read from the bytes',
    type: FileInfoView,
  },
];

export const COMPLETE_ERRORS: BotErrorDoc[] = [
  { code: 'VALIDATION', when: 'the declaration differs from step 1' },
  { code: 'UPLOAD_SIZE_MISMATCH', when: 'the stored bytes differ in size (they are deleted)' },
  { code: 'NOT_FOUND', when: "no such upload, or another owner's key" },
  { code: 'CONFLICT', when: 'the key was completed before' },
  { code: 'UPLOAD_NOT_RECEIVED', when: 'nothing was stored under the key yet' },
  { code: 'UPLOAD_EXPIRED', when: 'the upload expired before completion (its bytes are deleted)' },
  { code: 'UPLOAD_TYPE_MISMATCH', when: 'the store holds the bytes under another type (they are deleted)' },
];
