import { Body, Controller, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ApplicationsService } from './applications.service';
import { ApplicationView } from './dto/application.view';
import { CreateApplicationDto } from './dto/create-application.dto';
import { ResourceIdPipe } from '../resource-id.pipe';
import { UpdateApplicationDto } from './dto/update-application.dto';

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/open-platform/applications')
export class ApplicationsController {
  constructor(private readonly applications: ApplicationsService) {}

  @Get()
  @ApiOkResponse({ description: 'The applications of the caller', type: [ApplicationView] })
  @ApiOperation({ summary: 'List the applications owned by the caller' })
  list(@CurrentAccount() account: Account): Promise<ApplicationView[]> {
    return this.applications.list(account.id);
  }

  @Post()
  @ApiCreatedResponse({ description: 'The new application', type: ApplicationView })
  @ApiOperation({ summary: 'Create an application owned by the caller' })
  create(@CurrentAccount() account: Account, @Body() dto: CreateApplicationDto): Promise<ApplicationView> {
    return this.applications.create(account.id, dto);
  }

  @Get(':id')
  @ApiOkResponse({ description: 'The application', type: ApplicationView })
  @ApiErrors('NOT_FOUND')
  @ApiOperation({ summary: 'One application of the caller' })
  get(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
  ): Promise<ApplicationView> {
    return this.applications.get(account.id, id);
  }

  @Patch(':id')
  @ApiOkResponse({ description: 'The updated application', type: ApplicationView })
  @ApiErrors('NOT_FOUND')
  @ApiOperation({ summary: 'Change name, description, allowed origins or status' })
  update(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Body() dto: UpdateApplicationDto,
  ): Promise<ApplicationView> {
    return this.applications.update(account.id, id, dto);
  }
}
