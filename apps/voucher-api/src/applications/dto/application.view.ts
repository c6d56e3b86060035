import { ApiProperty } from '@nestjs/swagger';
import { vouchersFeatureOpen } from '../application-rules';
import type { ApplicationRecord } from '../applications.store';

export class ApplicationFeaturesView {
  @ApiProperty()
  vouchers: boolean;
}

/** The application as every route shows it: console, staff and the token's self-check. */
export class ApplicationView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: ['active', 'disabled'] })
  status: 'active' | 'disabled';

  @ApiProperty({ type: [String], example: ['*'] })
  allowed_origins: string[];

  @ApiProperty({ type: ApplicationFeaturesView })
  features: ApplicationFeaturesView;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

type ApplicationFields = Pick<
  ApplicationRecord,
  'id' | 'name' | 'description' | 'status' | 'allowedOrigins' | 'features' | 'createdAt' | 'updatedAt'
>;

export function toApplicationView(application: ApplicationFields): ApplicationView {
  return {
    id: application.id,
    name: application.name,
    description: application.description,
    status: application.status,
    allowed_origins: application.allowedOrigins,
    features: { vouchers: vouchersFeatureOpen(application.features) },
    created_at: application.createdAt.toISOString(),
    updated_at: application.updatedAt.toISOString(),
  };
}
