import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApplicationsService } from '../applications/applications.service';

export const MAX_RECIPIENTS = 20;

export interface RecipientView {
  id: string;
  name: string;
}

/** Escapes LIKE metacharacters so a keyword such as `50%` matches literally. */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

@Injectable()
export class RecipientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
  ) {}

  /** Users known to the service whose name contains the keyword, or whose id is exactly the keyword; exact id first. */
  async search(ownerId: string, applicationId: string, keyword: string): Promise<RecipientView[]> {
    await this.applications.requireOwned(this.dataSource.manager, ownerId, applicationId);
    const rows: RecipientView[] = await this.dataSource.query(
      `SELECT id, name FROM users
        WHERE id = $1 OR lower(name) LIKE lower($2) ESCAPE '\\'
        ORDER BY (id = $1) DESC, lower(name), id
        LIMIT $3`,
      [keyword, likePattern(keyword), MAX_RECIPIENTS],
    );
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }
}
