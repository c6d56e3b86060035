import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { AppTokensService } from './app-tokens.service';
import { AppTokenView, CreatedAppTokenView } from './dto/app-token.view';
import { CreateAppTokenDto } from './dto/create-app-token.dto';

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@ApiErrors('NOT_FOUND')
@Controller('api/v1/open-platform/applications/:id/tokens')
export class AppTokensController {
  constructor(private readonly tokens: AppTokensService) {}

  @Get()
  @ApiOperation({ summary: 'List the application tokens (prefix only, never the secret)' })
  @ApiOkResponse({ description: 'The tokens of the application, oldest first', type: [AppTokenView] })
  list(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
  ): Promise<AppTokenView[]> {
    return this.tokens.list(account.id, id);
  }

  @Post()
  @ApiOperation({ summary: 'Create a token; the plaintext `token` is returned in this response only' })
  @ApiCreatedResponse({ description: 'The token record and its plaintext `token`', type: CreatedAppTokenView })
  create(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Body() dto: CreateAppTokenDto,
  ): Promise<CreatedAppTokenView> {
    return this.tokens.create(account.id, id, dto);
  }

  @Delete(':tokenId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a token; it fails from the very next request on' })
  @ApiOkResponse({ description: 'The token, with revoked_at set', type: AppTokenView })
  revoke(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Param('tokenId', new ResourceIdPipe('Token')) tokenId: string,
  ): Promise<AppTokenView> {
    return this.tokens.revoke(account.id, id, tokenId);
  }
}
