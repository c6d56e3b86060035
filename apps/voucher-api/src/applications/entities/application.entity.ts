import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type ApplicationStatus = 'active' | 'disabled';

export interface ApplicationFeatures {
  vouchers: boolean;
}

/** An open application: the tenant every runtime call of its tokens is confined to. */
@Entity({ name: 'applications' })
export class Application {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'owner_id', type: 'varchar', length: 128 })
  ownerId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status: ApplicationStatus;

  /** Host patterns compared with the Origin header's host: `*`, `shop.example.com`, `*.example.com`. */
  @Column({ name: 'allowed_origins', type: 'text', array: true, default: () => `'{*}'` })
  allowedOrigins: string[];

  @Column({ type: 'jsonb', default: () => `'{"vouchers": true}'` })
  features: ApplicationFeatures;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
