import type { Application } from '../entities/application.entity';

export interface ApplicationView {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'disabled';
  allowed_origins: string[];
  features: { vouchers: boolean };
  created_at: string;
  updated_at: string;
}

export function toApplicationView(application: Application): ApplicationView {
  return {
    id: application.id,
    name: application.name,
    description: application.description,
    status: application.status,
    allowed_origins: application.allowedOrigins,
    features: { vouchers: application.features?.vouchers !== false },
    created_at: application.createdAt.toISOString(),
    updated_at: application.updatedAt.toISOString(),
  };
}
