import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A holder's consent, with the name of the application it was given to. */
export interface AuthorizationRow {
  application_id: string;
  application_name: string;
  user_id: string;
  created_at: Date;
}

const WITH_APPLICATION_NAME = `SELECT z.application_id, a.name AS application_name, z.user_id, z.created_at
  FROM authorizations z JOIN applications a ON a.id = z.application_id`;

/** The owner of `authorizations`: the holders' consent that the recipient rule of an issue reads. */
@Injectable()
export class AuthorizationsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  list(userId: string): Promise<AuthorizationRow[]> {
    return this.dataSource.query(
      `${WITH_APPLICATION_NAME} WHERE z.user_id = $1 ORDER BY z.created_at, z.application_id`,
      [userId],
    );
  }

  async find(manager: EntityManager, userId: string, applicationId: string): Promise<AuthorizationRow | undefined> {
    const [row]: AuthorizationRow[] = await manager.query(
      `${WITH_APPLICATION_NAME} WHERE z.user_id = $1 AND z.application_id = $2`,
      [userId, applicationId],
    );
    return row;
  }

  /** Consent is a set membership: a second insert keeps the first record. */
  async insert(manager: EntityManager, userId: string, applicationId: string): Promise<void> {
    await manager.query(`INSERT INTO authorizations (user_id, application_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      userId,
      applicationId,
    ]);
  }

  async delete(manager: EntityManager, userId: string, applicationId: string): Promise<void> {
    await manager.query(`DELETE FROM authorizations WHERE user_id = $1 AND application_id = $2`, [
      userId,
      applicationId,
    ]);
  }
}
