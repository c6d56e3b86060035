import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AliasKind, AliasRequest } from '@app/telegram-shapes';
import { nativeOfTelegramAlias, telegramAliases } from '@app/bot-delivery';
import { DataSource } from 'typeorm';

/**
 * The integer aliases of chats and users on the Telegram face. Their statements live with the
 * delivery side (@app/bot-delivery), which writes Telegram webhook bodies with the same aliases.
 */
@Injectable()
export class TelegramAliasesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async aliases(wanted: AliasRequest): Promise<Record<AliasKind, Map<string, number>>> {
    const [chat, user] = await Promise.all([
      telegramAliases(this.dataSource, 'chat', [...wanted.chat]),
      telegramAliases(this.dataSource, 'user', [...wanted.user]),
    ]);
    return { chat, user };
  }

  nativeOf(kind: AliasKind, alias: number): Promise<string | null> {
    return nativeOfTelegramAlias(this.dataSource, kind, alias);
  }
}
