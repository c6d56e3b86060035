import { ApiProperty } from '@nestjs/swagger';
import type { BotBinding } from '../entities/bot-binding.entity';

/** That a bot belongs to an application; it never lets a runtime call switch applications. */
export class BotBindingView {
  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty({ pattern: '^[0-9a-f]{24}$', description: 'The bot service’s bot id' })
  bot_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** What the view reads of a binding: an entity, or a row returned under these names. */
export type BotBindingSource = Pick<BotBinding, 'applicationId' | 'botId' | 'createdAt'>;

export function toBotBindingView(binding: BotBindingSource): BotBindingView {
  return {
    application_id: binding.applicationId,
    bot_id: binding.botId,
    created_at: binding.createdAt.toISOString(),
  };
}
