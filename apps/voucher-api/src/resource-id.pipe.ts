import { Injectable, PipeTransform } from '@nestjs/common';
import { VoucherErrors } from './voucher-errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are opaque: a malformed one simply names nothing, so it answers 404 like an unknown one. */
@Injectable()
export class ResourceIdPipe implements PipeTransform<string, string> {
  constructor(private readonly what: string) {}

  transform(value: string): string {
    if (!UUID.test(value)) throw VoucherErrors.notFound(this.what);
    return value.toLowerCase();
  }
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
