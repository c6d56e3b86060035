import { Body, Controller, Param, Patch, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountGuard, PlatformAdminGuard } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { AdminApplicationsService } from './admin-applications.service';
import { AdminApplicationView } from './dto/admin-application.view';
import { UpdateApplicationFeaturesDto } from './dto/update-application-features.dto';

@ApiTags('admin: applications')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/open-platform/admin/applications')
export class AdminApplicationsController {
  constructor(private readonly applications: AdminApplicationsService) {}

  @Patch(':id')
  @ApiOperation({ summary: 'Open or close features of an application; closed vouchers → 403 FEATURE_DISABLED at once' })
  @ApiOkResponse({ description: 'The application with its features', type: AdminApplicationView })
  @ApiErrors({ code: 'FORBIDDEN', when: 'the account is not platform staff' }, 'NOT_FOUND')
  update(
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Body() body: UpdateApplicationFeaturesDto,
  ): Promise<AdminApplicationView> {
    return this.applications.setFeatures(id, body.features);
  }
}
