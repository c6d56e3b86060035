import { Injectable } from '@nestjs/common';
import { Database, SqlTarget } from '@app/platform';
import { AppTokenCache } from './app-token-cache';
import { changedFields } from '../changed-fields';
import { VoucherErrors } from '../voucher-errors';
import { ApplicationChanges, ApplicationRecord, ApplicationsStore } from './applications.store';
import { ApplicationView, toApplicationView } from './dto/application.view';
import { CreateApplicationDto } from './dto/create-application.dto';
import { UpdateApplicationDto } from './dto/update-application.dto';
import type { ApplicationFeatures } from './entities/application.entity';

/** The console's view of applications: an account reaches only its own; any other id answers 404. */
@Injectable()
export class ApplicationsService {
  constructor(
    private readonly database: Database,
    private readonly store: ApplicationsStore,
    private readonly tokenCache: AppTokenCache,
  ) {}

  async list(ownerId: string): Promise<ApplicationView[]> {
    return (await this.store.listOwned(ownerId)).map(toApplicationView);
  }

  create(ownerId: string, dto: CreateApplicationDto): Promise<ApplicationView> {
    return this.database.transaction(async (tx) => {
      const application = await this.store.insert(tx, {
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
    return toApplicationView(await this.requireOwned(this.database, ownerId, id));
  }

  async update(ownerId: string, id: string, dto: UpdateApplicationDto): Promise<ApplicationView> {
    const view = await this.database.transaction(async (tx) => {
      const application = await this.requireOwned(tx, ownerId, id, { lock: true });
      const edited = await this.save(tx, application, {
        name: dto.name,
        description: dto.description,
        allowedOrigins: dto.allowed_origins,
        status: dto.status,
      });
      return toApplicationView(edited);
    });
    // Tokens carry their application's status, origins and name; their cached look-ups must not outlive a change.
    this.tokenCache.applicationChanged(id);
    return view;
  }

  /** Staff open or close features of any application; a closed feature answers 403 on every runtime route at once. */
  async setFeatures(id: string, features: ApplicationFeatures): Promise<ApplicationRecord> {
    const application = await this.database.transaction(async (tx) => {
      const found = await this.store.find(tx, id, true);
      if (!found) throw VoucherErrors.notFound('Application');
      return this.save(tx, found, { features: { ...found.features, vouchers: features.vouchers } });
    });
    this.tokenCache.applicationChanged(id);
    return application;
  }

  /**
   * The application when `ownerId` owns it; otherwise 404, so that another account cannot even learn
   * that the id exists. `lock` takes a row lock for use cases that change what hangs off the application.
   */
  async requireOwned(
    on: SqlTarget,
    ownerId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<ApplicationRecord> {
    const application = await this.store.findOwned(on, ownerId, id, options.lock);
    if (!application) throw VoucherErrors.notFound('Application');
    return application;
  }

  /** Any application by id, for use cases that reached it through a row of their own; 404 when it is gone. */
  async require(on: SqlTarget, id: string): Promise<ApplicationRecord> {
    const application = await this.store.find(on, id);
    if (!application) throw VoucherErrors.notFound('Application');
    return application;
  }

  /** The application with `changes` written, or as it was when they change nothing. */
  private async save(
    tx: SqlTarget,
    application: ApplicationRecord,
    changes: ApplicationChanges,
  ): Promise<ApplicationRecord> {
    const changed = changedFields(application, changes);
    if (Object.keys(changed).length === 0) return application;
    return this.store.update(tx, application.id, changed);
  }
}
