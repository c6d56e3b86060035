import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Application } from './entities/application.entity';

export type NewApplication = Pick<
  Application,
  'ownerId' | 'name' | 'description' | 'allowedOrigins' | 'status' | 'features'
>;

/** The owner of `applications`: every read and write of an application row goes through here. */
@Injectable()
export class ApplicationsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  listOwned(ownerId: string): Promise<Application[]> {
    return this.dataSource.manager.find(Application, { where: { ownerId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  insert(manager: EntityManager, fields: NewApplication): Promise<Application> {
    return manager.save(manager.create(Application, fields));
  }

  /** The application when `ownerId` owns it; `lock` holds its row until the transaction ends. */
  findOwned(manager: EntityManager, ownerId: string, id: string, lock = false): Promise<Application | null> {
    return manager.findOne(Application, {
      where: { id, ownerId },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
  }

  /** Any owner's application (staff, and use cases that reached it through a row of their own). */
  find(manager: EntityManager, id: string, lock = false): Promise<Application | null> {
    return manager.findOne(Application, { where: { id }, lock: lock ? { mode: 'pessimistic_write' } : undefined });
  }

  save(manager: EntityManager, application: Application): Promise<Application> {
    return manager.save(application);
  }
}
