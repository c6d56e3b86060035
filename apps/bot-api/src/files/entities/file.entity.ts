import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Stored file metadata; the bytes live in the storage driver under `storage_key`. */
@Entity({ name: 'files' })
export class StoredFile {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Owner when a bot uploaded it. */
  @Column({ name: 'bot_id', type: 'varchar', length: 24, nullable: true })
  botId: string | null;

  /** Owner when an end user uploaded it. */
  @Column({ name: 'user_id', type: 'varchar', length: 128, nullable: true })
  userId: string | null;

  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 255 })
  mimeType: string;

  @Column({ name: 'file_size', type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  fileSize: number;

  @Column({ type: 'integer', nullable: true })
  width: number | null;

  @Column({ type: 'integer', nullable: true })
  height: number | null;

  @Column({ type: 'integer', nullable: true })
  duration: number | null;

  @Column({ name: 'storage_key', type: 'varchar', length: 512 })
  storageKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
