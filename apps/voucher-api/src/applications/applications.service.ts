import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import { ApplicationView, toApplicationView } from './dto/application.view';
import { CreateApplicationDto } from './dto/create-application.dto';
import { UpdateApplicationDto } from './dto/update-application.dto';
import { Application } from './entities/application.entity';

/**
 * Stock leaves an application only while it may issue: a disabled application or a closed vouchers
 * feature stops allocations, sends and claims just as it stops the runtime routes.
 */
export function assertApplicationIssues(application: Pick<Application, 'status' | 'features'>): void {
  if (application.status !== 'active') {
    throw new ApiError(403, 'APPLICATION_DISABLED', 'The application is disabled');
  }
  if (application.features?.vouchers === false) {
    throw new ApiError(403, 'FEATURE_DISABLED', 'The vouchers feature is closed for this application');
  }
}

/** The console's view of applications: an account reaches only its own; any other id answers 404. */
@Injectable()
export class ApplicationsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(ownerId: string): Promise<ApplicationView[]> {
    const applications = await this.dataSource.manager.find(Application, {
      where: { ownerId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return applications.map(toApplicationView);
  }

  create(ownerId: string, dto: CreateApplicationDto): Promise<ApplicationView> {
    return this.dataSource.transaction(async (manager) => {
      const application = manager.create(Application, {
        ownerId,
        name: dto.name,
        description: dto.description ?? null,
        allowedOrigins: dto.allowed_origins ?? ['*'],
        status: 'active',
        features: { vouchers: true },
      });
      return toApplicationView(await manager.save(application));
    });
  }

  async get(ownerId: string, id: string): Promise<ApplicationView> {
    return toApplicationView(await this.requireOwned(this.dataSource.manager, ownerId, id));
  }

  update(ownerId: string, id: string, dto: UpdateApplicationDto): Promise<ApplicationView> {
    return this.dataSource.transaction(async (manager) => {
      const application = await this.requireOwned(manager, ownerId, id, { lock: true });
      if (dto.name !== undefined) application.name = dto.name;
      if (dto.description !== undefined) application.description = dto.description;
      if (dto.allowed_origins !== undefined) application.allowedOrigins = dto.allowed_origins;
      if (dto.status !== undefined) application.status = dto.status;
      return toApplicationView(await manager.save(application));
    });
  }

  /**
   * The application when `ownerId` owns it; otherwise 404, so that another account cannot even learn
   * that the id exists. `lock` takes a row lock for use cases that change what hangs off the application.
   */
  async requireOwned(
    manager: EntityManager,
    ownerId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<Application> {
    const application = await manager.findOne(Application, {
      where: { id, ownerId },
      lock: options.lock ? { mode: 'pessimistic_write' } : undefined,
    });
    if (!application) throw ApiError.notFound('Application');
    return application;
  }
}
