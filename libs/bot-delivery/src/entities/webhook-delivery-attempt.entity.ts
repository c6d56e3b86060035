import type { DeliveryTrigger } from './webhook-delivery.entity';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One POST of a delivery: its HTTP status (null when no response came), latency and error. */
@Entity({ name: 'webhook_delivery_attempts' })
export class WebhookDeliveryAttempt {
  /** From the sequence webhook_delivery_attempts_id_seq; unique with delivery_created_at, the partition key. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  /** Its delivery's created_at: the day both are partitioned by, and half of the reference to it. */
  @Column({ name: 'delivery_created_at', type: 'timestamptz' })
  deliveryCreatedAt: Date;

  @Column({ type: 'integer' })
  series: number;

  /** How the attempt's series was started (see DeliveryTrigger). */
  @Column({ type: 'varchar', length: 16 })
  trigger: DeliveryTrigger;

  /** 1-based number within the series. */
  @Column({ type: 'integer' })
  attempt: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
