import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { DataSource } from 'typeorm';
import { Bot } from '../bots/entities/bot.entity';

/** `sbot_` plus 43 base62 characters, as issued by generateSecretToken('sbot_'). */
const BOT_TOKEN_SHAPE = /^sbot_[0-9A-Za-z]{43}$/;

@Injectable()
export class BotTokenService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The bot whose current, unrevoked token this is, whatever its availability. Every input is
   * hashed and looked up the same way, so a malformed or foreign token costs the same as a wrong one.
   */
  async findByToken(token: string): Promise<Bot | null> {
    const hash = hashSecretToken(token);
    const bot = await this.dataSource
      .getRepository(Bot)
      .createQueryBuilder('bot')
      .addSelect('bot.tokenHash')
      .where('bot.tokenHash = :hash AND bot.tokenRevokedAt IS NULL', { hash })
      .getOne();
    if (!bot || !bot.tokenHash || !constantTimeEqual(bot.tokenHash, hash) || !BOT_TOKEN_SHAPE.test(token)) {
      return null;
    }
    bot.tokenHash = null;
    return bot;
  }
}
