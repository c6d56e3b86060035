import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { SearchRecipientsDto } from './dto/search-recipients.dto';
import { RecipientView } from './dto/recipient.view';
import { RecipientSearchThrottle } from './recipient-search.throttle';
import { RecipientsService } from './recipients.service';

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@ApiErrors('NOT_FOUND', { code: 'RATE_LIMITED', when: 'more recipient searches per minute than allowed' })
@Controller('api/v1/open-platform/applications/:id/vouchers/recipients')
export class RecipientsController {
  constructor(private readonly recipients: RecipientsService) {}

  @Get()
  @UseGuards(RecipientSearchThrottle)
  @ApiOperation({ summary: 'Find users to allocate stock to (name substring or exact id; at most 20)' })
  @ApiOkResponse({ description: 'Matching users, an exact id first', type: [RecipientView] })
  search(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Query() query: SearchRecipientsDto,
  ): Promise<RecipientView[]> {
    return this.recipients.search(account.id, id, query.keyword);
  }
}
