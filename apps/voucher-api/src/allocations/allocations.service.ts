import { Injectable } from '@nestjs/common';
import type { RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { Database, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import { assertApplicationIssues } from '../applications/application-rules';
import { ApplicationsService } from '../applications/applications.service';
import { TemplatesService } from '../templates/templates.service';
import { TemplatesStore } from '../templates/templates.store';
import { UsersStore } from '../users/users.store';
import { VoucherErrors } from '../voucher-errors';
import { AllocationsStore } from './allocations.store';
import { requireKnownRecipient } from './known-recipient';
import { AllocationPage, toAllocationView } from './dto/allocation.view';
import { CreateAllocationDto } from './dto/create-allocation.dto';
import { ListAllocationsDto } from './dto/list-allocations.dto';

@Injectable()
export class AllocationsService {
  constructor(
    private readonly database: Database,
    private readonly allocations: AllocationsStore,
    private readonly applications: ApplicationsService,
    private readonly templates: TemplatesService,
    private readonly stock: TemplatesStore,
    private readonly users: UsersStore,
  ) {}

  async list(ownerId: string, applicationId: string, query: ListAllocationsDto): Promise<AllocationPage> {
    await this.applications.requireOwned(this.database, ownerId, applicationId);
    const window = pageWindow(query);
    const [allocations, total] = await this.allocations.list(applicationId, query.templateId, window);
    return pageAnswer(allocations.map(toAllocationView), total, window);
  }

  /**
   * Moves stock from the template to the sender's backpack. The template's counters and the new
   * allocation commit together with the idempotency record, so a retry either replays this answer
   * or finds nothing done.
   */
  create(
    ownerId: string,
    applicationId: string,
    dto: CreateAllocationDto,
    call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.database.transaction(async (tx) => {
      assertApplicationIssues(await this.applications.requireOwned(tx, ownerId, applicationId));
      await this.requireActiveTemplate(tx, applicationId, dto.templateId);
      await requireKnownRecipient(this.users, tx, dto.recipientUserId, 'recipientUserId');
      if (!(await this.stock.consumeAllocatedStock(tx, dto.templateId, dto.quantity))) {
        throw VoucherErrors.error(
          'INSUFFICIENT_STOCK',
          'The template has not enough remaining stock for this quantity',
        );
      }
      const allocation = await this.allocations.insert(tx, {
        applicationId,
        templateId: dto.templateId,
        senderUserId: dto.recipientUserId,
        createdBy: ownerId,
        quantity: dto.quantity,
      });
      return call.complete(tx, toAllocationView(allocation));
    });
  }

  private async requireActiveTemplate(tx: SqlTarget, applicationId: string, templateId: string): Promise<void> {
    // The row lock keeps a concurrent pause or end from slipping between this check and the stock update.
    const template = await this.templates.require(tx, applicationId, templateId, true);
    if (template.status !== 'active') {
      throw VoucherErrors.error(
        'TEMPLATE_NOT_ACTIVE',
        `Only an active template can be allocated (it is ${template.status})`,
      );
    }
  }
}
