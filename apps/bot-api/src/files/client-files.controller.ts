import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { MethodDocs } from '../method-docs';
import { CompleteUploadDto, UploadCredentialsDto } from './dto/upload.dto';
import { FileInfoView, UploadCredentialsView } from './dto/file.view';
import { FileUploadsService } from './file-uploads.service';
import { COMPLETE_DOC, COMPLETE_ERRORS, CREDENTIALS_DOC } from './upload-docs';

/** End users' uploads: the same three steps, owned by the account; post the file_id as a message. */
@ApiTags('client files')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/files')
export class ClientFilesController {
  constructor(private readonly uploads: FileUploadsService) {}

  @Post('upload-credentials')
  @MethodDocs(...CREDENTIALS_DOC, 'VALIDATION')
  credentials(@CurrentAccount() account: Account, @Body() dto: UploadCredentialsDto): Promise<UploadCredentialsView> {
    return this.uploads.credentials({ kind: 'user', userId: account.id }, dto);
  }

  @Post('complete')
  @MethodDocs(...COMPLETE_DOC, ...COMPLETE_ERRORS)
  complete(@CurrentAccount() account: Account, @Body() dto: CompleteUploadDto): Promise<FileInfoView> {
    return this.uploads.complete({ kind: 'user', userId: account.id }, dto);
  }
}
