import { Injectable } from '@nestjs/common';
import { ApplicationsService } from '../applications/applications.service';
import { toApplicationView } from '../applications/dto/application.view';
import { AdminApplicationView } from './dto/admin-application.view';
import type { FeaturesDto } from './dto/update-application-features.dto';

@Injectable()
export class AdminApplicationsService {
  constructor(private readonly applications: ApplicationsService) {}

  /** Staff open or close features; a closed feature answers 403 FEATURE_DISABLED on every runtime route at once. */
  async setFeatures(applicationId: string, features: FeaturesDto): Promise<AdminApplicationView> {
    const application = await this.applications.setFeatures(applicationId, features);
    return { ...toApplicationView(application), owner_id: application.ownerId };
  }
}
