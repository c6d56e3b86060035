import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { AppCaller } from '../app-auth/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { RuntimeRoute } from '../app-auth/runtime-route.decorator';
import { ListTemplatesQuery } from './dto/list-templates.query';
import { CreateTemplateDto } from './dto/template-body.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import type { TemplateView } from './template.view';
import { TemplatesService } from './templates.service';

const TemplateId = () => Param('templateId', new ResourceIdPipe('Template'));

@ApiTags('runtime: templates')
@Controller('api/v1/open-platform/vouchers/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'templates.list', query: ['status'] })
  list(@CurrentCaller() caller: AppCaller, @Query() query: ListTemplatesQuery): Promise<TemplateView[]> {
    return this.templates.list(caller.application.id, query.status);
  }

  @Post()
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.create', body: true })
  create(@CurrentCaller() caller: AppCaller, @Body() body: CreateTemplateDto): Promise<TemplateView> {
    return this.templates.create(caller.application.id, body);
  }

  @Get(':templateId')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'templates.read' })
  get(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.get(caller.application.id, templateId);
  }

  @Patch(':templateId')
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.update', body: true })
  update(
    @CurrentCaller() caller: AppCaller,
    @TemplateId() templateId: string,
    @Body() body: UpdateTemplateDto,
  ): Promise<TemplateView> {
    return this.templates.update(caller.application.id, templateId, body);
  }

  @Post(':templateId/submit')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.submit' })
  submit(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'submit');
  }

  @Post(':templateId/pause')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle' })
  pause(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'pause');
  }

  @Post(':templateId/resume')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle' })
  resume(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'resume');
  }

  @Post(':templateId/end')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle' })
  end(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'end');
  }

  @Post(':templateId/archive')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:templates:write', rateLimit: 'templates.lifecycle' })
  archive(@CurrentCaller() caller: AppCaller, @TemplateId() templateId: string): Promise<TemplateView> {
    return this.templates.transition(caller.application.id, templateId, 'archive');
  }
}
