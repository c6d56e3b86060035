import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { PlatformFilesModule } from '../platform-files/platform-files.module';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';
import { TemplatesStore } from './templates.store';

@Module({
  imports: [ApplicationsModule, PlatformFilesModule],
  controllers: [TemplatesController],
  providers: [TemplatesStore, TemplatesService],
  exports: [TemplatesStore, TemplatesService],
})
export class TemplatesModule {}
