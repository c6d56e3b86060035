import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppTokenCache } from './app-token-cache';
import { VoucherErrors } from '../voucher-errors';
import { ApplicationsStore } from './applications.store';
import { ApplicationView, toApplicationView } from './dto/application.view';
import { CreateApplicationDto } from './dto/create-application.dto';
import { UpdateApplicationDto } from './dto/update-application.dto';
import type { Application, ApplicationFeatures } from './entities/application.entity';

/** The console's view of applications: an account reaches only its own; any other id answers 404. */
@Injectable()
export class ApplicationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ApplicationsStore,
    private readonly tokenCache: AppTokenCache,
  ) {}

  async list(ownerId: string): Promise<ApplicationView[]> {
    return (await this.store.listOwned(ownerId)).map(toApplicationView);
  }

  create(ownerId: string, dto: CreateApplicationDto): Promise<ApplicationView> {
    return this.dataSource.transaction(async (manager) => {
      const application = await this.store.insert(manager, {
        ownerId,
        name: dto.name,
        description: dto.description ?? null,
        allowedOrigins: dto.allowed_origins ?? ['*'],
        status: 'active',
        features: { vouchers: true },
      });
      return toApplicationView(application);
    });
  }

  async get(ownerId: string, id: string): Promise<ApplicationView> {
    return toApplicationView(await this.requireOwned(this.dataSource.manager, ownerId, id));
  }

  async update(ownerId: string, id: string, dto: UpdateApplicationDto): Promise<ApplicationView> {
    const view = await this.dataSource.transaction(async (manager) => {
      const application = await this.requireOwned(manager, ownerId, id, { lock: true });
      if (dto.name !== undefined) application.name = dto.name;
      if (dto.description !== undefined) application.description = dto.description;
      if (dto.allowed_origins !== undefined) application.allowedOrigins = dto.allowed_origins;
      if (dto.status !== undefined) application.status = dto.status;
      return toApplicationView(await this.store.save(manager, application));
    });
    // Tokens carry their application's status, origins and name; their cached look-ups must not outlive a change.
    this.tokenCache.applicationChanged(id);
    return view;
  }

  /** Staff open or close features of any application; a closed feature answers 403 on every runtime route at once. */
  async setFeatures(id: string, features: ApplicationFeatures): Promise<Application> {
    const application = await this.dataSource.transaction(async (manager) => {
      const found = await this.store.find(manager, id, true);
      if (!found) throw VoucherErrors.notFound('Application');
      found.features = { ...found.features, vouchers: features.vouchers };
      return this.store.save(manager, found);
    });
    this.tokenCache.applicationChanged(id);
    return application;
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
    const application = await this.store.findOwned(manager, ownerId, id, options.lock);
    if (!application) throw VoucherErrors.notFound('Application');
    return application;
  }

  /** Any application by id, for use cases that reached it through a row of their own; 404 when it is gone. */
  async require(manager: EntityManager, id: string): Promise<Application> {
    const application = await this.store.find(manager, id);
    if (!application) throw VoucherErrors.notFound('Application');
    return application;
  }
}
