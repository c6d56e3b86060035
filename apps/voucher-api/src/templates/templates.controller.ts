import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppCaller } from '../applications/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../resource-id.pipe';
import { RuntimeRoute, RuntimeSuccess } from '../app-auth/runtime-route.decorator';
import type { RuntimeRouteOptions } from '../applications/runtime-route.options';
import { ListTemplatesQuery } from './dto/list-templates.query';
import { CreateTemplateDto } from './dto/template-body.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import { TemplateView } from './template.view';
import { TemplatesService } from './templates.service';
import type { VoucherErrorDoc } from '../voucher-errors';

const TRANSITION_ERRORS: RuntimeRouteOptions['errors'] = [
  'NOT_FOUND',
  { code: 'CONFLICT', when: 'the move is not allowed from the current state' },
];

const COVER_UNAVAILABLE: VoucherErrorDoc[] = [
  { code: 'FILE_SERVICE_UNAVAILABLE', when: 'cover_file_id given and the platform file service did not answer' },
];

const TemplateId = () => Param('templateId', new ResourceIdPipe('Template'));

@ApiTags('runtime: templates')
@Controller('api/v1/open-platform/vouchers/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'templates.list', query: ['status'] })
  @ApiOperation({ summary: 'List all templates of the calling application, oldest first' })
  @RuntimeSuccess(200, 'Array of templates', [TemplateView])
  list(@CurrentCaller() caller: AppCaller, @Query() query: ListTemplatesQuery): Promise<TemplateView[]> {
    return this.templates.list(caller.application.id, query.status);
  }

  @Post()
  @RuntimeRoute({
    permission: 'vouchers:templates:write',
    rateLimit: 'templates.create',
    body: true,
    errors: [
      { code: 'DUPLICATE_EXTERNAL_ID', when: 'external_template_id already used in the application' },
      ...COVER_UNAVAILABLE,
    ],
  })
  @ApiOperation({ summary: 'Create a template in state draft' })
  @RuntimeSuccess(201, 'The new template (status draft)', TemplateView)
  create(@CurrentCaller() caller: AppCaller, @Body() body: CreateTemplateDto): Promise<TemplateView> {
    return this.templates.create(caller.application.id, body);
  }

  @Get(':templateId')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'templates.read', errors: ['NOT_FOUND'] })
  @ApiOperation({ summary: 'One template of the calling application' })
  @RuntimeSuccess(200, 'The template', TemplateView)
  get(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.get(caller.application.id, templateId);
  }

  @Patch(':templateId')
  @RuntimeRoute({
    permission: 'vouchers:templates:write',
    rateLimit: 'templates.update',
    body: true,
    errors: [
      'NOT_FOUND',
      { code: 'CONFLICT', when: 'the template is not in draft or rejected' },
      { code: 'DUPLICATE_EXTERNAL_ID', when: 'external_template_id already used in the application' },
      ...COVER_UNAVAILABLE,
    ],
  })
  @ApiOperation({ summary: 'Edit a draft or rejected template; given fields replace the stored ones' })
  @RuntimeSuccess(200, 'The edited template', TemplateView)
  update(
    @CurrentCaller() caller: AppCaller,
    @TemplateId() templateId: string,
    @Body() body: UpdateTemplateDto,
  ): Promise<TemplateView> {
    return this.templates.update(caller.application.id, templateId, body);
  }

  @Post(':templateId/submit')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.submit', errors: TRANSITION_ERRORS })
  @ApiOperation({ summary: 'Submit a draft or rejected template for review (→ reviewing)' })
  @RuntimeSuccess(200, 'The template in its new state', TemplateView)
  submit(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'submit');
  }

  @Post(':templateId/pause')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle', errors: TRANSITION_ERRORS })
  @ApiOperation({ summary: 'Pause an active template (→ paused); no further issuing' })
  @RuntimeSuccess(200, 'The template in its new state', TemplateView)
  pause(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'pause');
  }

  @Post(':templateId/resume')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle', errors: TRANSITION_ERRORS })
  @ApiOperation({ summary: 'Resume a paused template (→ active)' })
  @RuntimeSuccess(200, 'The template in its new state', TemplateView)
  resume(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'resume');
  }

  @Post(':templateId/end')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle', errors: TRANSITION_ERRORS })
  @ApiOperation({ summary: 'End an active or paused template (→ ended)' })
  @RuntimeSuccess(200, 'The template in its new state', TemplateView)
  end(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'end');
  }

  @Post(':templateId/archive')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle', errors: TRANSITION_ERRORS })
  @ApiOperation({ summary: 'Archive a draft, rejected or ended template (→ archived)' })
  @RuntimeSuccess(200, 'The template in its new state', TemplateView)
  archive(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'archive');
  }
}
