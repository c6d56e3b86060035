import type { Type } from '@nestjs/common';
import { createValidationPipe } from '@app/platform';

const pipe = createValidationPipe();

/**
 * The native operation's DTO, validated by the same pipe as the native routes: the Telegram face
 * translates names and shapes, and every limit (text length, button data, quotas) stays native.
 */
export async function nativeDto<T extends object>(type: Type<T>, plain: Record<string, unknown>): Promise<T> {
  const defined = Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined));
  return (await pipe.transform(defined, { type: 'body', metatype: type })) as T;
}
