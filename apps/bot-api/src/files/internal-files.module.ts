import { Module } from '@nestjs/common';
import { InternalFilesController } from './internal-files.controller';
import { FilesStore } from './files.store';

/** File checks other platform services make through the internal routes. */
@Module({
  controllers: [InternalFilesController],
  providers: [FilesStore],
})
export class InternalFilesModule {}
