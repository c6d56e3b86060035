import { Controller, Get, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiPublic } from '@app/platform';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiErrors } from '../bot-errors';
import { SignedDownloadQuery, SignedUploadQuery } from './dto/upload.dto';
import { FileTransferService } from './file-transfer.service';
import { SignedUrlGuard } from './signed-url.guard';
import { STORAGE_ROUTE } from './storage/disk-file-storage';
import { userContentHeaders } from './user-content-headers';

const BINARY = { schema: { type: 'string', format: 'binary' } };

/**
 * The disk driver's byte routes, reached through the signed URLs that upload-credentials and
 * download links hand out; the signature is the credential. With FILE_STORAGE_DRIVER=s3 the
 * URLs point at the bucket instead and these routes answer 404.
 */
@ApiTags('file storage')
@ApiPublic()
@UseGuards(SignedUrlGuard)
@Controller(STORAGE_ROUTE)
export class FileStorageController {
  constructor(private readonly transfers: FileTransferService) {}

  @Put(':blob')
  @ApiOperation({
    summary: 'Upload step 2 (disk driver): PUT the bytes to the uploadUrl with exactly the returned headers',
  })
  @ApiConsumes('application/octet-stream')
  @ApiBody({ description: 'The file bytes, Content-Type = fileType, Content-Length = fileSize', ...BINARY })
  @ApiNoContentResponse({ description: 'Stored; complete the upload next' })
  @ApiErrors(
    { code: 'VALIDATION', when: 'the URL lacks a parameter' },
    { code: 'UPLOAD_SIZE_MISMATCH', when: 'Content-Length or the bytes differ from fileSize; nothing is stored' },
    { code: 'FILE_URL_INVALID', when: 'the signature does not match the key, size, type or expiry' },
    { code: 'NOT_FOUND', when: 'the upload no longer exists (purged), or the disk driver is not in use' },
    { code: 'UPLOAD_ALREADY_USED', when: 'the URL was used before' },
    { code: 'FILE_URL_EXPIRED', when: 'the URL expired' },
    { code: 'UPLOAD_TYPE_MISMATCH', when: 'Content-Type differs from fileType; nothing is stored' },
  )
  async upload(
    @Param('blob') blob: string,
    @Query() query: SignedUploadQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      await this.transfers.receive(blob, query, req.headers, req);
    } catch (error) {
      // A refused body is discarded as it arrives rather than left unread on the connection.
      if (!req.readableEnded) req.resume();
      throw error;
    }
    res.status(204).end();
  }

  @Get(':blob')
  @ApiOperation({ summary: 'Download (disk driver): the bytes of a signed, expiring download URL' })
  @ApiOkResponse({ description: 'The bytes, with the file type and length', content: { '*/*': BINARY } })
  @ApiErrors(
    'VALIDATION',
    { code: 'FILE_URL_INVALID', when: 'the signature does not match the key, type or expiry' },
    { code: 'NOT_FOUND', when: 'nothing is stored under the key, or the disk driver is not in use' },
    { code: 'FILE_URL_EXPIRED', when: 'the URL expired' },
  )
  async download(
    @Param('blob') blob: string,
    @Query() query: SignedDownloadQuery,
    @Res() res: Response,
  ): Promise<void> {
    const download = await this.transfers.download(blob, query);
    res.status(200);
    res.setHeader('Content-Type', download.type);
    res.setHeader('Content-Length', String(download.size));
    res.set(userContentHeaders(download.type));
    res.setHeader('Cache-Control', `private, max-age=${Math.max(0, download.expires - Math.floor(Date.now() / 1000))}`);
    await pipeline(download.body, res);
  }
}
