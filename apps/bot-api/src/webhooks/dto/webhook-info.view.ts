import { ApiProperty } from '@nestjs/swagger';
import { UPDATE_TYPES } from '../../update-types';

/** getWebhookInfo: Telegram's shape plus allowed_ips and platform_egress_ips. */
export class WebhookInfo {
  @ApiProperty({ description: 'Empty in polling mode' })
  url: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Webhook mode: deliveries pending or retrying; polling mode: Updates not confirmed yet',
  })
  pending_update_count: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds of the last failed delivery' })
  last_error_date: number | null;

  @ApiProperty({ type: String, nullable: true })
  last_error_message: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null in polling mode' })
  max_connections: number | null;

  @ApiProperty({ type: [String], enum: UPDATE_TYPES, description: 'Empty means every default type' })
  allowed_updates: string[];

  @ApiProperty({ type: [String], description: 'IPs or CIDR blocks the dispatcher may connect to; empty means any' })
  allowed_ips: string[];

  @ApiProperty({ type: [String], description: 'Addresses the service delivers from, for the receiver allow-list' })
  platform_egress_ips: string[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Unix seconds at which the secret_token replaced by the last rotation stops being signed with; null when no overlap runs',
  })
  previous_secret_expires_at: number | null;

  @ApiProperty({
    description:
      'Self-healing dead letters (set with PATCH /api/v1/bots/my/:botId): when the webhook answers 2xx again, ' +
      'dead letters are redelivered automatically, once each, in update order',
  })
  auto_redeliver_dead_letters: boolean;
}
