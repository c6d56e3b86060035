import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { ApplicationsService } from '../applications/applications.service';
import { UsersStore } from '../users/users.store';
import { RecipientView } from './dto/recipient.view';

export const MAX_RECIPIENTS = 20;

@Injectable()
export class RecipientsService {
  constructor(
    private readonly database: Database,
    private readonly applications: ApplicationsService,
    private readonly users: UsersStore,
  ) {}

  /** Users known to the service whose name contains the keyword, or whose id is exactly the keyword; exact id first. */
  async search(ownerId: string, applicationId: string, keyword: string): Promise<RecipientView[]> {
    await this.applications.requireOwned(this.database, ownerId, applicationId);
    return this.users.search(keyword, MAX_RECIPIENTS);
  }
}
