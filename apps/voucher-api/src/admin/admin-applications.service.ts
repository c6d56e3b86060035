import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { ApplicationFeaturesView } from '../app-auth/me.service';
import { Application } from '../applications/entities/application.entity';
import type { FeaturesDto } from './dto/update-application-features.dto';

export class AdminApplicationView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  owner_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: ['active', 'disabled'] })
  status: string;

  @ApiProperty({ type: [String] })
  allowed_origins: string[];

  @ApiProperty({ type: ApplicationFeaturesView })
  features: ApplicationFeaturesView;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

@Injectable()
export class AdminApplicationsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Staff open or close features; a closed feature answers 403 FEATURE_DISABLED on every runtime route at once. */
  async setFeatures(applicationId: string, features: FeaturesDto): Promise<AdminApplicationView> {
    return this.dataSource.transaction(async (manager) => {
      const application = await manager.findOne(Application, {
        where: { id: applicationId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!application) throw ApiError.notFound('Application');
      application.features = { ...application.features, vouchers: features.vouchers };
      const saved = await manager.save(application);
      return {
        id: saved.id,
        owner_id: saved.ownerId,
        name: saved.name,
        description: saved.description,
        status: saved.status,
        allowed_origins: saved.allowedOrigins,
        features: { vouchers: saved.features.vouchers === true },
        created_at: saved.createdAt.toISOString(),
        updated_at: saved.updatedAt.toISOString(),
      };
    });
  }
}
