import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { SearchRecipientsDto } from './dto/search-recipients.dto';
import { RecipientsService, RecipientView } from './recipients.service';

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@ApiErrorResponses([404, 'NOT_FOUND'])
@Controller('api/v1/open-platform/applications/:id/vouchers/recipients')
export class RecipientsController {
  constructor(private readonly recipients: RecipientsService) {}

  @Get()
  @ApiOperation({ summary: 'Find users to allocate stock to (name substring or exact id; at most 20)' })
  search(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Query() query: SearchRecipientsDto,
  ): Promise<RecipientView[]> {
    return this.recipients.search(account.id, id, query.keyword);
  }
}
