import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A holder's consent that an application may issue vouchers to them (the recipient rule reads it). */
@Entity({ name: 'authorizations' })
export class Authorization {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  @PrimaryColumn({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
