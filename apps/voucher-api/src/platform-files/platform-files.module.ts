import { Module } from '@nestjs/common';
import { BotApiFilesClient } from './bot-api-files.client';
import { CoverImages } from './cover-images';

/** Files uploaded to the platform (held by bot-api), as the voucher service needs them. */
@Module({
  providers: [BotApiFilesClient, CoverImages],
  exports: [CoverImages],
})
export class PlatformFilesModule {}
