import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { ApplicationView, toApplicationView } from '../applications/dto/application.view';
import { Application } from '../applications/entities/application.entity';
import type { FeaturesDto } from './dto/update-application-features.dto';

export class AdminApplicationView extends ApplicationView {
  @ApiProperty()
  owner_id: string;
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
      return { ...toApplicationView(saved), owner_id: saved.ownerId };
    });
  }
}
