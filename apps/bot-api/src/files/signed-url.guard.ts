import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { countAgainstCredential } from '../rate-limits/credential-subject';
import { FileTransferService, RawSignedQuery } from './file-transfer.service';

/**
 * The signed byte routes' only credential is their URL. A URL whose signature checks out counts against
 * its own grant (the method, key and expiry it was signed for) in file_transfer, never against the
 * caller's address, so a valid link works whatever junk its address (an office, a carrier's NAT, a
 * proxy) sent before; a URL that does not check out counts against the address. Guards run before the
 * route limit; the route checks the URL again, with the rest of its rules, when it runs.
 */
@Injectable()
export class SignedUrlGuard implements CanActivate {
  constructor(private readonly transfers: FileTransferService) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const method = req.method === 'PUT' ? 'PUT' : 'GET';
    const segment = (req.params as Record<string, string | undefined>).blob ?? '';
    const query = req.query as RawSignedQuery;
    const key = this.transfers.signedKey(method, segment, query);
    if (key) countAgainstCredential(req, `file:${method}:${String(query.expires)}:${key}`);
    return true;
  }
}
