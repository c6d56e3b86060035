import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount, PlatformAdminGuard } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import {
  AuditQueryDto,
  PageAfterQueryDto,
  RedriveBodyDto,
  StaffDeliveriesQueryDto,
  StartRedriveDto,
  WindowQueryDto,
} from './dto/staff-deliveries.dto';
import { RedriveJobsService } from './redrive-jobs.service';
import { StaffDeliveriesService } from './staff-deliveries.service';
import {
  AuditPage,
  DeliverySummaryView,
  RedriveDryRunView,
  RedriveJobPage,
  RedriveProgressView,
  StaffDeliveryDetailView,
  StaffDeliveryPage,
  StaffDeliveryView,
  StaffSessionView,
} from './staff-deliveries.view';

/** One delivery is addressed as updates/:updateId, so that no path is ambiguous with redrives/:jobId. */
@ApiTags('delivery operations (platform staff)')
@ApiBearerAuth()
@ApiErrors('UNAUTHORIZED', { code: 'FORBIDDEN', when: 'not platform staff' })
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/bots/admin/deliveries')
export class StaffDeliveriesController {
  constructor(
    private readonly deliveries: StaffDeliveriesService,
    private readonly redrives: RedriveJobsService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Deliveries of every bot, newest event first, by status, bot, window and error class' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: '`items` and `next_cursor` (null on the last page)', type: StaffDeliveryPage })
  list(@Query() query: StaffDeliveriesQueryDto): Promise<StaffDeliveryPage> {
    return this.deliveries.list(query);
  }

  @Get('session')
  @ApiOperation({ summary: 'Who is signed in: the staff account the console acts as (shown on the page)' })
  @ApiOkResponse({ description: '`id`, `name` and `roles` of the caller', type: StaffSessionView })
  session(@CurrentAccount() staff: Account): StaffSessionView {
    return { id: staff.id, name: staff.name, roles: staff.roles };
  }

  @Get('summary')
  @ApiOperation({ summary: 'Counts per status, dead letters per error class, and the bots with most dead letters' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: 'Counts for the window', type: DeliverySummaryView })
  summary(@Query() query: WindowQueryDto): Promise<DeliverySummaryView> {
    return this.deliveries.summary(query);
  }

  @Get('audit')
  @ApiOperation({ summary: 'The audit log of staff delivery actions, newest first' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: '`items` and `next_cursor`', type: AuditPage })
  audit(@Query() query: AuditQueryDto): Promise<AuditPage> {
    return this.deliveries.auditLog(query);
  }

  @Post('redrives/dry-run')
  @HttpCode(200)
  @ApiOperation({ summary: 'How many dead letters, per bot, a redrive with this filter would take now' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: '`would_redeliver` and `per_bot`', type: RedriveDryRunView })
  dryRun(@CurrentAccount() staff: Account, @Body() dto: RedriveBodyDto): Promise<RedriveDryRunView> {
    return this.redrives.dryRun(staff.id, dto);
  }

  @Post('redrives')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Bulk redelivery of dead letters by filter, as a background job (rate-limited per bot, in update order)',
  })
  @ApiErrors('VALIDATION')
  @ApiAcceptedResponse({ description: 'The job with its progress', type: RedriveProgressView })
  startRedrive(@CurrentAccount() staff: Account, @Body() dto: StartRedriveDto): Promise<RedriveProgressView> {
    return this.redrives.start(staff.id, dto);
  }

  @Get('redrives')
  @ApiOperation({ summary: 'Redrive jobs, newest first' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: '`items` and `next_cursor`', type: RedriveJobPage })
  redrivesList(@Query() query: PageAfterQueryDto): Promise<RedriveJobPage> {
    return this.redrives.recent(query);
  }

  @Get('redrives/:jobId')
  @ApiOperation({ summary: 'Progress of a redrive job: total, done, failed, pending, per bot' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({ description: 'The job with its progress', type: RedriveProgressView })
  redrive(@Param('jobId') jobId: string): Promise<RedriveProgressView> {
    return this.redrives.progress(jobId);
  }

  @Post('redrives/:jobId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a running redrive job; what it restarted stays restarted' })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'the job has already ended' })
  @ApiOkResponse({ description: 'The job, status cancelled, with its progress', type: RedriveProgressView })
  cancelRedrive(@CurrentAccount() staff: Account, @Param('jobId') jobId: string): Promise<RedriveProgressView> {
    return this.redrives.cancel(staff.id, jobId);
  }

  @Get('updates/:updateId')
  @ApiOperation({ summary: 'One delivery of any bot with its attempts and its Update' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({
    description: 'The delivery, `update` (the payload) and `attempt_log`',
    type: StaffDeliveryDetailView,
  })
  get(@Param('updateId') updateId: string): Promise<StaffDeliveryDetailView> {
    return this.deliveries.get(updateId);
  }

  @Post('updates/:updateId/redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Redeliver one finished delivery of any bot: pending with a new attempt series' })
  @ApiErrors('NOT_FOUND', {
    code: 'CONFLICT',
    when: 'the delivery is still pending or retrying, or the bot has no webhook',
  })
  @ApiOkResponse({ description: 'The delivery, status pending', type: StaffDeliveryView })
  redeliver(@CurrentAccount() staff: Account, @Param('updateId') updateId: string): Promise<StaffDeliveryView> {
    return this.deliveries.redeliver(staff.id, updateId);
  }
}
