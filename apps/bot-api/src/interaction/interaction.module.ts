import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { ChatsModule } from '../chats/chats.module';
import { MessagesModule } from '../messages/messages.module';
import { UpdatesModule } from '../updates/updates.module';
import { UsersModule } from '../users/users.module';
import { CallbackQueriesService } from './callback-queries.service';
import { ChatInstances } from './chat-instance';
import { ClientInteractionController } from './client-interaction.controller';
import { InlineQueriesService } from './inline-queries.service';
import { CallbackQueriesStore, InlineQueriesStore } from './interaction-queries.store';
import { InteractionController } from './interaction.controller';
import { QueriesPurgeService } from './queries-purge.service';

/** Buttons (callback queries) and inline mode: the client's click or query, the bot's one answer. */
@Module({
  imports: [BotsModule, ChatsModule, MessagesModule, UpdatesModule, UsersModule],
  controllers: [InteractionController, ClientInteractionController],
  providers: [
    CallbackQueriesStore,
    InlineQueriesStore,
    CallbackQueriesService,
    InlineQueriesService,
    ChatInstances,
    QueriesPurgeService,
  ],
  exports: [CallbackQueriesService, InlineQueriesService],
})
export class InteractionModule {}
