import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AccountGuard, PlatformAdminGuard } from '@app/auth';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import type { TemplateView } from '../templates/template.view';
import { TemplatesService } from '../templates/templates.service';
import { RejectTemplateDto } from './dto/reject-template.dto';
import { ReviewQueueQuery } from './dto/review-queue.query';

const TemplateId = () => Param('templateId', new ResourceIdPipe('Template'));

@ApiTags('admin: template review')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/open-platform/admin/templates')
export class AdminTemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  list(@Query() query: ReviewQueueQuery): Promise<TemplateView[]> {
    return this.templates.listForReview(query.status);
  }

  @Post(':templateId/approve')
  @HttpCode(200)
  approve(@TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(null, templateId, 'approve');
  }

  @Post(':templateId/reject')
  @HttpCode(200)
  reject(@TemplateId() templateId: string, @Body() body: RejectTemplateDto): Promise<TemplateView> {
    return this.templates.transition(null, templateId, 'reject', body.reason);
  }
}
