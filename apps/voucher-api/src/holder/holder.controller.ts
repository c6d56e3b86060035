import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { AuthorizationView } from './dto/authorization.view';
import { CreateAuthorizationDto } from './dto/create-authorization.dto';
import { HolderVoucherPage } from './dto/holder-voucher.view';
import { PageQueryDto } from '@app/platform';
import { HolderService } from './holder.service';

@ApiTags('holder')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/open-platform/holder')
export class HolderController {
  constructor(private readonly holder: HolderService) {}

  @Get('vouchers')
  @ApiOperation({ summary: 'My vouchers, newest first, with the QR token and code to show at the counter' })
  @ApiOkResponse({ description: 'A page of my vouchers', type: HolderVoucherPage })
  vouchers(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<HolderVoucherPage> {
    return this.holder.vouchers(account.id, query);
  }

  @Get('authorizations')
  @ApiOperation({ summary: 'Applications I allowed to issue vouchers to me' })
  @ApiOkResponse({ description: 'My consents, oldest first', type: [AuthorizationView] })
  authorizations(@CurrentAccount() account: Account): Promise<AuthorizationView[]> {
    return this.holder.authorizations(account.id);
  }

  @Post('authorizations')
  @HttpCode(200)
  @ApiOkResponse({
    description: 'The consent record (the first one, when repeated): consent is a setting, not a new resource',
    type: AuthorizationView,
  })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such application' })
  @ApiOperation({ summary: 'Allow an application to issue vouchers to me (repeating it changes nothing)' })
  authorize(@CurrentAccount() account: Account, @Body() dto: CreateAuthorizationDto): Promise<AuthorizationView> {
    return this.holder.authorize(account.id, dto.application_id);
  }

  @Delete('authorizations/:applicationId')
  @ApiOkResponse({ description: 'The consent record that was removed', type: AuthorizationView })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no consent given to this application' })
  @HttpCode(200)
  @ApiOperation({ summary: 'Withdraw my consent; vouchers already issued stay mine' })
  revoke(
    @CurrentAccount() account: Account,
    @Param('applicationId', new ResourceIdPipe('Authorization')) applicationId: string,
  ): Promise<AuthorizationView> {
    return this.holder.revokeAuthorization(account.id, applicationId);
  }
}
