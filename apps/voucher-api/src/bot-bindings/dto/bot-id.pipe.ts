import { Injectable, PipeTransform } from '@nestjs/common';
import { VoucherErrors } from '../../voucher-errors';

export const BOT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** A bot id is chosen by the caller here, so a malformed one is a validation error, not an unknown resource. */
@Injectable()
export class BotIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!BOT_ID_PATTERN.test(value)) {
      throw VoucherErrors.invalid('botId must be 24 lowercase hexadecimal characters', [
        { field: 'botId', problem: 'must be 24 lowercase hexadecimal characters' },
      ]);
    }
    return value;
  }
}
