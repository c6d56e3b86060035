import { Injectable } from '@nestjs/common';
import { VoucherErrors } from '../voucher-errors';
import { BotApiFilesClient, FileServiceUnavailable } from './bot-api-files.client';

export const COVER_FILE_PROBLEM = 'must be the id of an image uploaded to the platform by the application owner';

/**
 * The spec's rule for a template's cover_file_id: an image already uploaded to the platform and owned
 * by the application owner. The files live in bot-api, which decides all of it in one answer.
 */
@Injectable()
export class CoverImages {
  constructor(private readonly files: BotApiFilesClient) {}

  /** 400 naming cover_file_id when the rule fails; 503 FILE_SERVICE_UNAVAILABLE when bot-api cannot tell. */
  async assertOwnedBy(ownerId: string, fileId: string): Promise<void> {
    let ownership;
    try {
      ownership = await this.files.imageOwnership(fileId, ownerId);
    } catch (error) {
      if (error instanceof FileServiceUnavailable) {
        throw VoucherErrors.error(
          'FILE_SERVICE_UNAVAILABLE',
          'cover_file_id could not be checked: the platform file service did not answer; nothing was changed, retry later',
          { headers: { 'Retry-After': '5' } },
        );
      }
      throw error;
    }
    if (ownership !== 'owned_image') {
      throw VoucherErrors.invalid(`Validation failed: cover_file_id: ${COVER_FILE_PROBLEM}`, [
        { field: 'cover_file_id', problem: COVER_FILE_PROBLEM },
      ]);
    }
  }
}
