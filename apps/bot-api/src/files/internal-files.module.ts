import { Module } from '@nestjs/common';
import { InternalFilesController } from './internal-files.controller';
import { OwnedImagesStore } from './owned-images.store';

/** File checks other platform services make through the internal routes. */
@Module({
  controllers: [InternalFilesController],
  providers: [OwnedImagesStore],
})
export class InternalFilesModule {}
