import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isIpOrCidr } from '@app/bot-delivery';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { UPDATE_TYPES } from '../../update-types';

export const DEFAULT_MAX_CONNECTIONS = 40;

function IsIpOrCidrEach(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIpOrCidrEach',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'each allowed_ips entry must be an IP address or CIDR block', ...options },
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) && value.every((entry) => typeof entry === 'string' && isIpOrCidr(entry)),
      },
    });
}

export class DropPendingDto {
  @ApiPropertyOptional({ description: 'Drop every Update not delivered or fetched yet', default: false })
  @IsOptional()
  @IsBoolean()
  drop_pending_updates?: boolean;
}

export class SetWebhookDto extends DropPendingDto {
  @ApiProperty({ description: 'HTTPS URL that receives every Update as a signed POST', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({
    description:
      'Key of the HMAC-SHA256 signatures (X-Service-Signature, X-Service-Signature-V2); 1–256 of A-Z a-z 0-9 _ -',
    maxLength: 256,
  })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,256}$/, { message: 'secret_token must be 1-256 characters of A-Z, a-z, 0-9, _ and -' })
  secret_token: string;

  @ApiPropertyOptional({
    type: [String],
    enum: UPDATE_TYPES,
    description: 'Update types to receive; empty means every default type; remembered until changed',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(UPDATE_TYPES.length)
  @IsIn(UPDATE_TYPES, { each: true })
  allowed_updates?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'The dispatcher connects only to a resolved address of the URL host within these IPs or CIDR blocks',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIpOrCidrEach()
  allowed_ips?: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: DEFAULT_MAX_CONNECTIONS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  max_connections?: number;
}
