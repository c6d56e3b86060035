import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import {
  ACQUISITION_SOURCES,
  AcquisitionSource,
  FULFILLMENT_CATEGORIES,
  FulfillmentCategory,
  type JsonObject,
  type TemplateFulfillment,
  TEMPLATE_TYPES,
  TemplateType,
} from '../entities/template.entity';

export const MAX_ISSUE_LIMIT = 100_000_000;

export class ValidityDto {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Fixed validity start (ISO 8601)',
    example: '2026-01-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Fixed validity end (ISO 8601), after from',
    example: '2026-12-31T23:59:59Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 3650,
    description: 'Relative validity: days from the moment the voucher is issued or claimed',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  days_after_claim?: number;
}

/** Exactly one kind of validity: `from` + `to` (from < to), or `days_after_claim`. */
function IsValidityChoice(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isValidityChoice',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null) return true;
          const { from, to, days_after_claim } = value as ValidityDto;
          // null counts as absent: it must not slip past here and reach the database's CHECK.
          const fixed = from != null || to != null;
          const relative = days_after_claim != null;
          if (fixed === relative) return false;
          if (!fixed) return true;
          if (from == null || to == null) return false;
          const start = Date.parse(from);
          const end = Date.parse(to);
          return Number.isNaN(start) || Number.isNaN(end) || start < end;
        },
        defaultMessage(): string {
          return 'validity takes either from and to (from before to) or days_after_claim, not both';
        },
      },
    });
}

export class FulfillmentDto implements TemplateFulfillment {
  @ApiPropertyOptional({ enum: ['in_app', 'external'] })
  @IsOptional()
  @IsIn(['in_app', 'external'])
  open_mode?: 'in_app' | 'external';

  @ApiPropertyOptional({ description: 'HTTPS address where the voucher is used' })
  @IsOptional()
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'redemption_url must be an HTTPS URL' })
  @MaxLength(2048)
  redemption_url?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  instructions?: string;
}

export class CreateTemplateDto {
  @ApiProperty({ description: "The caller's template number; unique within the application" })
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'external_template_id must be printable ASCII without spaces' })
  external_template_id: string;

  @ApiProperty()
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ enum: TEMPLATE_TYPES })
  @IsIn(TEMPLATE_TYPES)
  type: TemplateType;

  @ApiProperty()
  @IsString()
  @Length(1, 200)
  issuer_name: string;

  @ApiProperty()
  @IsString()
  @Length(1, 200)
  fulfiller_name: string;

  @ApiProperty({ enum: FULFILLMENT_CATEGORIES })
  @IsIn(FULFILLMENT_CATEGORIES)
  fulfillment_category: FulfillmentCategory;

  @ApiProperty({ enum: ACQUISITION_SOURCES })
  @IsIn(ACQUISITION_SOURCES)
  acquisition_source: AcquisitionSource;

  @ApiProperty({ type: ValidityDto })
  @IsObject()
  @IsValidityChoice()
  @ValidateNested()
  @Type(() => ValidityDto)
  validity: ValidityDto;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ISSUE_LIMIT,
    description: 'Total issue cap; 0 means unlimited',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_ISSUE_LIMIT)
  issue_limit: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, description: 'Omitted: 1' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  per_user_limit?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({
    description:
      'ID of an image already uploaded to the platform (a bot-service file_id) by the application owner, as a user ' +
      "or through one of their bots; URLs, other accounts' files and non-images are refused with 400",
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,128}$/, { message: 'cover_file_id must be a platform file ID, not a URL' })
  cover_file_id?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  usage_rules?: JsonObject;

  @ApiPropertyOptional({ type: FulfillmentDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => FulfillmentDto)
  fulfillment?: FulfillmentDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  terms?: JsonObject;
}
