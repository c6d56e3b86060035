import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { ProfileModule } from '../profile/profile.module';
import { QuotasModule } from '../quotas/quotas.module';
import { SendingModule } from '../sending/sending.module';
import { GetUpdatesModule } from '../get-updates/get-updates.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ChatsMethods } from './methods/chats.methods';
import { MediaMethods } from './methods/media.methods';
import { FilesModule } from '../files/files.module';
import { MessagesMethods } from './methods/messages.methods';
import { ProfileMethods } from './methods/profile.methods';
import { ChatsModule } from '../chats/chats.module';
import { InteractionModule } from '../interaction/interaction.module';
import { UpdatesMethods } from './methods/updates.methods';
import { MultipartSlots } from './multipart-slots';
import { DeliveryDomain } from '@app/bot-delivery';
import { TelegramController } from './telegram.controller';
import { TelegramGatewayService } from './telegram-gateway.service';
import { TelegramIdsService } from './telegram-ids.service';
import { TelegramSends } from './telegram-sends';
import { TelegramTokenGuard } from './telegram-token.guard';

/** The Telegram-compatible face: translation only, every operation runs in the native modules. */
@Module({
  imports: [
    BotsModule,
    ChatsModule,
    FilesModule,
    InteractionModule,
    ProfileModule,
    QuotasModule,
    SendingModule,
    GetUpdatesModule,
    WebhooksModule,
  ],
  controllers: [TelegramController],
  providers: [
    // Four calls at 50 MB bound what multipart uploads hold in memory at once, two of them of one bot.
    { provide: MultipartSlots, useValue: new MultipartSlots(4, 2) },
    DeliveryDomain,
    TelegramIdsService,
    TelegramSends,
    TelegramTokenGuard,
    TelegramGatewayService,
    UpdatesMethods,
    MessagesMethods,
    ChatsMethods,
    MediaMethods,
    ProfileMethods,
  ],
})
export class TelegramModule {}
