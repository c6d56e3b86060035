import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError, RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { DataSource, EntityManager } from 'typeorm';
import { ApplicationsService, assertApplicationIssues } from '../applications/applications.service';
import { Template } from '../templates/entities/template.entity';
import { consumeTemplateStock } from '../templates/template-stock';
import { User } from '../users/user.entity';
import { AllocationPage, toAllocationView } from './dto/allocation.view';
import { CreateAllocationDto } from './dto/create-allocation.dto';
import { ListAllocationsDto } from './dto/list-allocations.dto';
import { Allocation } from './entities/allocation.entity';

@Injectable()
export class AllocationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
  ) {}

  async list(ownerId: string, applicationId: string, query: ListAllocationsDto): Promise<AllocationPage> {
    await this.applications.requireOwned(this.dataSource.manager, ownerId, applicationId);
    const where = query.templateId ? { applicationId, templateId: query.templateId } : { applicationId };
    const [allocations, total] = await this.dataSource.manager.findAndCount(Allocation, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { items: allocations.map(toAllocationView), page: query.page, limit: query.limit, total };
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
    return this.dataSource.transaction(async (manager) => {
      assertApplicationIssues(await this.applications.requireOwned(manager, ownerId, applicationId));
      await this.requireActiveTemplate(manager, applicationId, dto.templateId);
      await this.requireKnownUser(manager, dto.recipientUserId);
      if (!(await consumeTemplateStock(manager, dto.templateId, dto.quantity, 'allocated'))) {
        throw new ApiError(409, 'INSUFFICIENT_STOCK', 'The template has not enough remaining stock for this quantity');
      }
      const allocation = await manager.save(
        manager.create(Allocation, {
          applicationId,
          templateId: dto.templateId,
          senderUserId: dto.recipientUserId,
          createdBy: ownerId,
          quantity: dto.quantity,
          remaining: dto.quantity,
          sendingCount: 0,
          claimedCount: 0,
        }),
      );
      // The status is computed by the database; read the row back rather than guess it here.
      const stored = await manager.findOneByOrFail(Allocation, { id: allocation.id });
      return call.complete(manager, toAllocationView(stored));
    });
  }

  private async requireActiveTemplate(
    manager: EntityManager,
    applicationId: string,
    templateId: string,
  ): Promise<void> {
    // The row lock keeps a concurrent pause or end from slipping between this check and the stock update.
    const template = await manager.findOne(Template, {
      where: { id: templateId, applicationId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!template) throw ApiError.notFound('Template');
    if (template.status !== 'active') {
      throw new ApiError(
        409,
        'TEMPLATE_NOT_ACTIVE',
        `Only an active template can be allocated (it is ${template.status})`,
      );
    }
  }

  private async requireKnownUser(manager: EntityManager, userId: string): Promise<void> {
    if (!(await manager.existsBy(User, { id: userId }))) {
      throw ApiError.badRequest('recipientUserId is not a known user', [
        { field: 'recipientUserId', problem: 'is not a known user' },
      ]);
    }
  }
}
