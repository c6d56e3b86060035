import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountGuard, PlatformAdminGuard } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { TemplatePage, TemplateView } from '../templates/template.view';
import { TemplatesService } from '../templates/templates.service';
import { RejectTemplateDto } from './dto/reject-template.dto';
import { ReviewQueueQuery } from './dto/review-queue.query';

const TemplateId = () => Param('templateId', new ResourceIdPipe('Template'));

@ApiTags('admin: template review')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@ApiErrors({ code: 'FORBIDDEN', when: 'the account is not platform staff' })
@Controller('api/v1/open-platform/admin/templates')
export class AdminTemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({ summary: 'Templates of every application by status, oldest submission first (review queue)' })
  @ApiOkResponse({
    description: '`items` (templates with application_id), `total`, `page`, `pageSize`',
    type: TemplatePage,
  })
  list(@Query() query: ReviewQueueQuery): Promise<TemplatePage> {
    return this.templates.listForReview(query.status, query);
  }

  @Post(':templateId/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a template under review (→ active)' })
  @ApiOkResponse({ description: 'The template, status active', type: TemplateView })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'the template is not under review' })
  approve(@TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(null, templateId, 'approve');
  }

  @Post(':templateId/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a template under review with a reason (→ rejected)' })
  @ApiOkResponse({ description: 'The template, status rejected, with rejection_reason', type: TemplateView })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'the template is not under review' })
  reject(@TemplateId() templateId: string, @Body() body: RejectTemplateDto): Promise<TemplateView> {
    return this.templates.transition(null, templateId, 'reject', body.reason);
  }
}
