import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApplicationsService } from '../applications/applications.service';
import { UsersStore } from '../users/users.store';
import { RecipientView } from './dto/recipient.view';

export const MAX_RECIPIENTS = 20;

@Injectable()
export class RecipientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
    private readonly users: UsersStore,
  ) {}

  /** Users known to the service whose name contains the keyword, or whose id is exactly the keyword; exact id first. */
  async search(ownerId: string, applicationId: string, keyword: string): Promise<RecipientView[]> {
    await this.applications.requireOwned(this.dataSource.manager, ownerId, applicationId);
    return this.users.search(keyword, MAX_RECIPIENTS);
  }
}
