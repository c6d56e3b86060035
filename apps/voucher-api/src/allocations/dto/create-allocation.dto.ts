import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, IsUUID, Length, Max, Min, registerDecorator } from 'class-validator';

export const MAX_ALLOCATION_QUANTITY = 10_000;

/** The rule of idempotency keys (1–255 printable ASCII characters), answered as one problem: `is required` or what is wrong. */
function IsIdempotencyKey(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIdempotencyKey',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^[\x20-\x7e]{1,255}$/.test(value),
        defaultMessage: (args) =>
          args?.value === undefined || args.value === null || args.value === ''
            ? 'is required'
            : 'must be 1-255 printable characters',
      },
    });
}

export class CreateAllocationDto {
  @ApiProperty({ format: 'uuid', description: 'An active template of this application' })
  @IsUUID()
  templateId: string;

  @ApiProperty({
    maxLength: 128,
    description:
      'The sender whose backpack receives the stock: a user the service knows, i.e. one who called it once ' +
      'with their own account JWT (else 400, not stored against the idempotencyKey)',
  })
  @IsString()
  @Length(1, 128)
  recipientUserId: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ALLOCATION_QUANTITY,
    description: 'Not above the remaining stock',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_ALLOCATION_QUANTITY)
  quantity: number;

  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x20-\\x7e]{1,255}$',
    description:
      'Your own unique id of this allocation; a retry after a network error keeps it and the same parameters ' +
      'and gets the stored answer (see the operation)',
  })
  @IsIdempotencyKey()
  idempotencyKey: string;
}
