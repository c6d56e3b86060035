import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { TemplatesModule } from '../templates/templates.module';
import { AdminApplicationsController } from './admin-applications.controller';
import { AdminApplicationsService } from './admin-applications.service';
import { AdminTemplatesController } from './admin-templates.controller';

/** Platform staff: template review and application features. */
@Module({
  imports: [TemplatesModule, ApplicationsModule],
  controllers: [AdminTemplatesController, AdminApplicationsController],
  providers: [AdminApplicationsService],
})
export class AdminModule {}
