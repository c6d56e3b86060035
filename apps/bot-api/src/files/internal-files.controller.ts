import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InternalServiceGuard } from '@app/auth';
import { INTERNAL_TAG } from '../api-docs';
import { ApiErrors, BotErrors } from '../bot-errors';
import { OwnedImageQuery, OwnedImageView } from './dto/owned-image.dto';
import { FilesStore } from './files.store';

/**
 * Service-to-service file checks. voucher-api asks whether a template's `cover_file_id` is an image
 * its application's owner uploaded; the answer never says which rule failed.
 */
@ApiTags(INTERNAL_TAG)
@UseGuards(InternalServiceGuard)
@Controller('api/v1/bots/internal/files')
export class InternalFilesController {
  constructor(private readonly files: FilesStore) {}

  @Get(':fileId')
  @ApiOperation({
    summary: 'An image file owned by an account (uploaded by it, or by a bot it develops)',
    description: 'Internal: for platform services only, with the internal service token.',
  })
  @ApiOkResponse({ type: OwnedImageView })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such file, not an image, or not owned by that account' })
  async ownedImage(@Param('fileId') fileId: string, @Query() query: OwnedImageQuery): Promise<OwnedImageView> {
    const image = await this.files.ownedImage(fileId, query.owner);
    if (!image) throw BotErrors.notFound('File');
    return { file_id: image.id, mime_type: image.mime_type, width: image.width, height: image.height };
  }
}
