import { Body, Controller, Get, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors, HAND_OUT_ERRORS, IDEMPOTENCY_KEY_ERRORS } from '../voucher-errors';
import { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { Request } from 'express';
import { ResourceIdPipe } from '../resource-id.pipe';
import { HandOutPreflight } from './hand-out-preflight.guard';
import { AllocationsService } from './allocations.service';
import { AllocationPage, AllocationView } from './dto/allocation.view';
import { CreateAllocationDto } from './dto/create-allocation.dto';
import { ListAllocationsDto } from './dto/list-allocations.dto';

const idempotencyKeyOfBody = (req: Request): unknown =>
  (req.body as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/open-platform/applications/:id/vouchers/allocations')
export class AllocationsController {
  constructor(private readonly allocations: AllocationsService) {}

  @Get()
  @ApiOkResponse({ description: '`items` (allocation records), `total`, `page`, `pageSize`', type: AllocationPage })
  @ApiErrors('NOT_FOUND')
  @ApiOperation({ summary: 'List allocations of the application (optionally of one template), newest first' })
  list(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Query() query: ListAllocationsDto,
  ): Promise<AllocationPage> {
    return this.allocations.list(account.id, id, query);
  }

  @Post()
  @ApiCreatedResponse({
    description: 'The allocation record; a replay carries `Idempotent-Replayed: true`',
    type: AllocationView,
  })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'application or template not found' },
    { code: 'INSUFFICIENT_STOCK', when: 'quantity above the remaining stock' },
    { code: 'VALIDATION_FAILED', when: 'a bad body, or a recipientUserId the service does not know (not stored)' },
    ...HAND_OUT_ERRORS,
    ...IDEMPOTENCY_KEY_ERRORS,
  )
  @UseGuards(HandOutPreflight(CreateAllocationDto, 'recipientUserId'))
  @Idempotent({ required: true, keyFrom: idempotencyKeyOfBody, keyName: 'idempotencyKey' })
  @ApiOperation({
    summary: 'Allocate template stock to a sender; idempotent on the idempotencyKey of the body',
    description:
      'A retry with the same idempotencyKey and the same body answers the stored result with ' +
      '`Idempotent-Replayed: true`: the allocation, or a refusal of the allocation itself (`INSUFFICIENT_STOCK`, ' +
      '`TEMPLATE_NOT_ACTIVE`, `NOT_FOUND`, `APPLICATION_DISABLED`, `FEATURE_DISABLED`). Two refusals are answered ' +
      'before the key is taken and are never stored, as Stripe stores only calls that started executing: a body ' +
      'that fails validation (400 `VALIDATION_FAILED` naming each problem, unknown fields included) and a ' +
      '`recipientUserId` the service does not know yet (400 `VALIDATION_FAILED`: a user becomes known with their ' +
      'first call to the service with their own JWT). Fix the cause and retry with the same key.',
  })
  create(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Body() dto: CreateAllocationDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.allocations.create(account.id, id, dto, call);
  }
}
