import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'reversals' })
export class Reversal {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ name: 'redemption_id', type: 'uuid' })
  redemptionId: string;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ name: 'operator_id', type: 'varchar', length: 128, nullable: true })
  operatorId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
