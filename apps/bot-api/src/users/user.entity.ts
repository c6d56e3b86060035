import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The service's directory of accounts that have called it (recipient search, authorisations). */
@Entity({ name: 'users' })
export class User {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** True for the system user a bot speaks as; people are false. */
  @Column({ name: 'is_bot', type: 'boolean', default: false })
  isBot: boolean;

  /** Set for bots (their @username); null for people. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  username: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
