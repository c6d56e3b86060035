import { Body, Controller, Param, Patch, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AccountGuard, PlatformAdminGuard } from '@app/auth';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { AdminApplicationsService, AdminApplicationView } from './admin-applications.service';
import { UpdateApplicationFeaturesDto } from './dto/update-application-features.dto';

@ApiTags('admin: applications')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/open-platform/admin/applications')
export class AdminApplicationsController {
  constructor(private readonly applications: AdminApplicationsService) {}

  @Patch(':id')
  update(
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Body() body: UpdateApplicationFeaturesDto,
  ): Promise<AdminApplicationView> {
    return this.applications.setFeatures(id, body.features);
  }
}
